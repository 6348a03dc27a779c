import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startTestReceiver, type TestReceiver } from '@bedrequest/webhook-check/testing';

/**
 * `npm run admin -- receiver check` as integrators run it: tools/admin.mjs, the notifier's bundled
 * command line, its own process. With NODE_ENV=production and none of the notifier's variables: a
 * command that read the notifier's configuration or opened its database would stop at the missing
 * DATABASE_URL and DATA_KEK (docs/webhooks.md, "Checking your receiver": no database needed).
 */
describe('npm run admin -- receiver check, as its own process', () => {
  const root = join(__dirname, '..', '..', '..');
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let correct: TestReceiver;
  let mistaken: TestReceiver;
  beforeAll(async () => {
    correct = await startTestReceiver({ secret });
    mistaken = await startTestReceiver({ secret, mistake: 'accepts-stale-timestamp' });
  });
  afterAll(() => Promise.all([correct.close(), mistaken.close()]));

  const admin = (argv: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(root, 'tools', 'admin.mjs'), ...argv],
        { cwd: root, env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', WEBHOOK_SECRET: secret }, encoding: 'utf8', timeout: 120_000 },
        (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });

  it('exits 0 for a correct receiver, 1 for one that takes stale timestamps, 2 without --url: with the secret from WEBHOOK_SECRET, no database', async () => {
    const passed = await admin(['receiver', 'check', '--url', correct.url, '--count-url', correct.countUrl]);
    expect(passed).toEqual({ code: 0, stdout: expect.stringContaining('all 4 checks hold: the receiver is ready for webhooks\n'), stderr: '' });
    expect(passed.stdout.split('\n').filter((line) => line.startsWith('ok   '))).toHaveLength(4);

    const failed = await admin(['receiver', 'check', '--url', mistaken.url]);
    expect(failed).toEqual({
      code: 1,
      stdout: expect.stringContaining('FAIL refuses-stale-timestamp: answered 204 to a webhook-timestamp 10 minutes old;'),
      stderr: 'error: 1 of 4 checks failed: the receiver is not ready for webhooks\n',
    });

    expect(await admin(['receiver', 'check'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: missing option --url; see npm run admin -- receiver --help\n',
    });
  }, 240_000);
});
