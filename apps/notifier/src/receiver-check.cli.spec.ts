import { randomBytes } from 'node:crypto';
import { startTestReceiver, type ReceiverMistake, type TestReceiver } from '@bedrequest/webhook-check/testing';
import { receiverCli, type ReceiverCheckEnvironment } from './receiver-check.cli';

/** `npm run admin -- receiver check ...` in-process, against real HTTP receivers on 127.0.0.1 (docs/webhooks.md, "Checking your receiver"). */
describe('npm run admin -- receiver check ...', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const receivers: TestReceiver[] = [];
  afterEach(() => Promise.all(receivers.splice(0).map((receiver) => receiver.close())));
  const receiver = async (mistake?: ReceiverMistake) => {
    const started = await startTestReceiver({ secret, mistake });
    receivers.push(started);
    return started;
  };

  let sessionsOpened: number;
  beforeEach(() => {
    sessionsOpened = 0;
  });
  const admin = async (argv: string[], environment: ReceiverCheckEnvironment = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const open = () => {
      sessionsOpened += 1;
      return Promise.reject(new Error('no session'));
    };
    const code = await receiverCli(environment).run(argv, { open, out: (line) => out.push(line), err: (line) => err.push(line), stdin: async () => '' });
    return { code, out, err };
  };

  it('prints a line per check and a summary, and exits 0 when every check holds, opening nothing', async () => {
    const correct = await receiver();

    const result = await admin(['receiver', 'check', '--url', correct.url, '--secret', secret, '--count-url', correct.countUrl]);

    expect(result).toEqual({
      code: 0,
      out: [
        expect.stringMatching(/^ok {3}answers-2xx-in-time: 204 in \d+ ms$/),
        'ok   refuses-bad-signature: answered 401',
        'ok   refuses-stale-timestamp: answered 401',
        'ok   handles-duplicate-once: both sends answered 2xx (204, 204); the count rose by 1 (from 1 to 2)',
        'all 4 checks hold: the receiver is ready for webhooks',
      ],
      err: [],
    });
    expect(sessionsOpened).toBe(0);
  });

  it.each<[ReceiverMistake, string]>([
    [
      'accepts-any-signature',
      'FAIL refuses-bad-signature: answered 204; a receiver must refuse a webhook whose signature does not verify (4xx): anyone could send it',
    ],
    [
      'answers-duplicate-409',
      'FAIL handles-duplicate-once: the duplicate answered 409; a receiver must acknowledge a duplicate with 2xx, else it is sent again',
    ],
  ])('marks the check a receiver with the mistake "%s" fails, and exits 1', async (mistake, failure) => {
    const mistaken = await receiver(mistake);

    const result = await admin(['receiver', 'check', '--url', mistaken.url, '--secret', secret, '--count-url', mistaken.countUrl]);

    expect(result.code).toBe(1);
    expect(result.out).toHaveLength(4);
    expect(result.out).toContain(failure);
    expect(result.out.filter((line) => line.startsWith('ok   '))).toHaveLength(3);
    expect(result.err).toEqual(['error: 1 of 4 checks failed: the receiver is not ready for webhooks']);
  });

  it('exits 1 with a timeout line for a receiver slower than --timeout-ms', async () => {
    const slow = await startTestReceiver({ secret, mistake: 'slow-first-answer', slowMs: 5_000 });
    receivers.push(slow);

    const result = await admin(['receiver', 'check', '--url', slow.url, '--secret', secret, '--timeout-ms', '1000']);

    expect(result.code).toBe(1);
    expect(result.out[0]).toBe(
      'FAIL answers-2xx-in-time: no answer within 1000 ms; a webhook must be answered 2xx within 1000 ms, else it failed and is sent again',
    );
  });

  it('takes the secret from WEBHOOK_SECRET, and --secret before it', async () => {
    const correct = await receiver();
    const other = `whsec_${randomBytes(32).toString('base64')}`;

    expect((await admin(['receiver', 'check', '--url', correct.url], { WEBHOOK_SECRET: secret })).code).toBe(0);
    expect((await admin(['receiver', 'check', '--url', correct.url, '--secret', secret], { WEBHOOK_SECRET: other })).code).toBe(0);
    const wrong = await admin(['receiver', 'check', '--url', correct.url], { WEBHOOK_SECRET: other });
    expect(wrong.code).toBe(1);
    expect(wrong.out[0]).toMatch(/^FAIL answers-2xx-in-time: answered 401 in \d+ ms; a correctly signed webhook must be answered 2xx/);
  });

  it.each<[string, string[], ReceiverCheckEnvironment, string]>([
    ['no --url', ['--secret', 'SECRET'], {}, 'missing option --url'],
    ['a --url that is not http', ['--url', 'ftp://receiver.example/hooks', '--secret', 'SECRET'], {}, '--url must be an absolute http or https URL'],
    ['no secret at all', ['--url', 'URL'], {}, 'missing option --secret (or WEBHOOK_SECRET in the environment)'],
    ['a blank WEBHOOK_SECRET', ['--url', 'URL'], { WEBHOOK_SECRET: ' ' }, 'missing option --secret (or WEBHOOK_SECRET in the environment)'],
    [
      'a --secret that is not whsec_',
      ['--url', 'URL', '--secret', 'hunter2'],
      {},
      "--secret (or WEBHOOK_SECRET) must be the subscription's secret as the service gave it: whsec_ followed by base64",
    ],
    [
      'a WEBHOOK_SECRET that is not whsec_',
      ['--url', 'URL'],
      { WEBHOOK_SECRET: 'hunter2' },
      "--secret (or WEBHOOK_SECRET) must be the subscription's secret as the service gave it: whsec_ followed by base64",
    ],
    [
      'a --timeout-ms that is no number',
      ['--url', 'URL', '--secret', 'SECRET', '--timeout-ms', 'soon'],
      {},
      '--timeout-ms must be a whole number of milliseconds from 1 to 60000',
    ],
    [
      'a --count-url that is not a URL',
      ['--url', 'URL', '--secret', 'SECRET', '--count-url', 'count'],
      {},
      '--count-url must be an absolute http or https URL',
    ],
    [
      'an unknown option',
      ['--url', 'URL', '--secret', 'SECRET', '--retries', '3'],
      {},
      'unknown option --retries (receiver check takes --url, --secret, --timeout-ms, --count-url)',
    ],
  ])('exits 2 for %s, sending nothing', async (_case, options, environment, message) => {
    const correct = await receiver();
    const argv = options.map((value) => (value === 'URL' ? correct.url : value === 'SECRET' ? secret : value));

    const result = await admin(['receiver', 'check', ...argv], environment);

    expect(result).toEqual({ code: 2, out: [], err: [`error: ${message}; see npm run admin -- receiver --help`] });
    expect(result.err.join('')).not.toContain('hunter2');
    expect(correct.received).toHaveLength(0);
  });

  it('shows the command in its --help', async () => {
    const result = await admin(['receiver', '--help']);

    expect(result.code).toBe(0);
    expect(result.out.join('\n')).toContain('  receiver check --url <URL> [--secret <whsec_...>] [--timeout-ms <ms>] [--count-url <URL>]');
    expect(result.out.join('\n')).toContain('WEBHOOK_SECRET');
  });
});
