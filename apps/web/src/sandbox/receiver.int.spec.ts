import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Webhook } from 'standardwebhooks';
import { loadConfig } from '@bedrequest/config';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { WebConfig } from '../config';
import { startWeb, type RunningWeb } from '../start';
import { MAX_BODY_BYTES, ReceiverStore } from './receiver-store';

/**
 * The sandbox's web app alone on the run's Redis (the whole way, with the notifier and the page in
 * Chromium: tools/e2e/workspace/webhook-inspector.int.spec.ts): its banner and header, and the
 * inspector's receivers as a caller meets them, recorded in Redis where any web process reads them.
 */
const env = testEnvironment();
const prefix = `${env.redisKeyPrefix}${uniqueName('web-sandbox')}:`;

function webWith(environment: Record<string, string>): Promise<RunningWeb> {
  return startWeb(
    loadConfig(WebConfig, {
      NODE_ENV: 'test',
      REDIS_URL: env.redisUrl,
      REDIS_KEY_PREFIX: prefix,
      WEB_CSRF_SECRET: 'w'.repeat(32),
      WEB_PORT: '0',
      WEB_INTERNAL_PORT: '0',
      // Nothing here asks the gateway: a closed port.
      GATEWAY_URL: 'http://127.0.0.1:9',
      LOG_LEVEL: 'silent',
      ...environment,
    }),
  );
}

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const BODY = '{"id":"evt-1","type":"AdmissionResponse","timestamp":"2026-12-07T10:00:00.000Z","sequence":1,"data":{"resourceType":"Task"}}';

function signedHeaders(body: string, signWith = secret, at = new Date()): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': 'evt-1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(signWith).sign('evt-1', at, body),
  };
}

describe("the sandbox's web app", () => {
  let sandbox: RunningWeb;
  let second: RunningWeb;
  let plain: RunningWeb;
  let redis: Redis;
  let store: ReceiverStore;
  let token: string;
  const party = `party-${randomBytes(4).toString('hex')}`;
  const post = (web: RunningWeb, body: string, headers: Record<string, string> = signedHeaders(body), signal?: AbortSignal) =>
    fetch(`${web.url}/sandbox/hooks/${token}`, { method: 'POST', headers, body, ...(signal ? { signal } : {}) });

  beforeAll(async () => {
    [sandbox, second, plain] = await Promise.all([webWith({ SANDBOX: 'true' }), webWith({ SANDBOX: 'true' }), webWith({})]);
    redis = new Redis(env.redisUrl, { keyPrefix: prefix });
    store = new ReceiverStore(redis);
    token = await store.receiverOf(party);
  });

  afterAll(async () => {
    redis?.disconnect();
    await Promise.all([sandbox, second, plain].map((web) => web?.stop()));
  });

  beforeEach(async () => {
    await store.clearDeliveries(token);
    await store.stopFailing(token);
    await store.setSecret(token, 'AdmissionResponse', secret);
  });

  it('says it is a sandbox on the login pages of the inbox and the workspace, and in every answer', async () => {
    const banner =
      '<aside class="banner-sandbox" id="sandbox-banner" aria-label="Testumgebung"><p>Sandbox – Testumgebung, keine echten Patientendaten</p></aside>';
    for (const path of ['/inbox/login', '/workspace/login']) {
      const answer = await fetch(`${sandbox.url}${path}`);
      expect(answer.headers.get('bedrequest-environment')).toBe('sandbox');
      expect(await answer.text()).toContain(banner);
    }
    expect((await fetch(`${sandbox.url}/nowhere`)).headers.get('bedrequest-environment')).toBe('sandbox');
    expect((await post(sandbox, BODY)).headers.get('bedrequest-environment')).toBe('sandbox');
  });

  it('without SANDBOX has neither banner nor header, and no receiver', async () => {
    for (const path of ['/inbox/login', '/workspace/login']) {
      const answer = await fetch(`${plain.url}${path}`);
      expect(answer.headers.get('bedrequest-environment')).toBeNull();
      expect(await answer.text()).not.toContain('sandbox-banner');
    }
    const answer = await post(plain, BODY);
    expect(answer.status).toBe(404);
    expect(answer.headers.get('bedrequest-environment')).toBeNull();
    expect(await store.deliveries(token, { limit: 10 })).toEqual([]);
  });

  it('records a signed delivery with every header and the body as received, checked valid, and answers 204', async () => {
    const answer = await post(sandbox, BODY, { ...signedHeaders(BODY), 'X-Custom': 'eins' });
    expect(answer.status).toBe(204);
    const [delivery] = await store.deliveries(token, { limit: 10 });
    expect(delivery).toMatchObject({
      body: BODY,
      bodyBytes: Buffer.byteLength(BODY),
      check: { state: 'valid', secretLabel: 'AdmissionResponse' },
      answer: { kind: 'status', status: 204 },
      failedOnPurpose: false,
    });
    expect(delivery?.headers).toEqual(
      expect.arrayContaining([
        ['X-Custom', 'eins'],
        ['webhook-id', 'evt-1'],
        ['content-type', 'application/json'],
      ]),
    );
  });

  it('records a forged delivery as invalid, an old one as stale, one without signature headers as invalid, and one without a known secret as such', async () => {
    await post(sandbox, BODY, signedHeaders(BODY, `whsec_${randomBytes(32).toString('base64')}`));
    await post(sandbox, BODY, signedHeaders(BODY, secret, new Date(Date.now() - 10 * 60_000)));
    await post(sandbox, BODY, { 'content-type': 'application/json' });
    await store.setSecret(token, 'AdmissionResponse', undefined);
    await post(sandbox, BODY);
    const checks = (await store.deliveries(token, { limit: 10 })).map((delivery) => delivery.check);
    expect(checks).toEqual([
      { state: 'no-secret' },
      { state: 'invalid', reason: 'missing-headers' },
      { state: 'stale', signatureMatches: true, secretLabel: 'AdmissionResponse' },
      { state: 'invalid', reason: 'no-match' },
    ]);
  });

  it('answers a body over 1 MiB 413 and records it without the body; one of exactly 1 MiB is kept', async () => {
    const large = 'x'.repeat(MAX_BODY_BYTES + 1);
    const answer = await post(sandbox, large);
    expect(answer.status).toBe(413);
    const exact = 'x'.repeat(MAX_BODY_BYTES);
    expect((await post(sandbox, exact)).status).toBe(204);
    const [kept, refused] = await store.deliveries(token, { limit: 10 });
    expect(refused).toMatchObject({ bodyBytes: MAX_BODY_BYTES + 1, check: { state: 'not-checked' }, answer: { kind: 'status', status: 413 } });
    expect(refused?.body).toBeUndefined();
    expect(kept).toMatchObject({ bodyBytes: MAX_BODY_BYTES, check: { state: 'valid' } });
    expect(kept?.body).toHaveLength(MAX_BODY_BYTES);
  });

  it('fails the next N deliveries with the status asked, counted in Redis across web processes, each recorded as failed on purpose', async () => {
    await store.failNext(token, 3, { kind: 'status', status: 503 });
    const statuses: number[] = [];
    for (const web of [sandbox, second, sandbox, second, sandbox]) statuses.push((await post(web, BODY)).status);
    expect(statuses).toEqual([503, 503, 503, 204, 204]);
    expect(await store.failures(token)).toEqual({ left: 0 });
    const recorded = (await store.deliveries(token, { limit: 10 })).reverse();
    expect(recorded.map((delivery) => [delivery.answer, delivery.failedOnPurpose])).toEqual([
      [{ kind: 'status', status: 503 }, true],
      [{ kind: 'status', status: 503 }, true],
      [{ kind: 'status', status: 503 }, true],
      [{ kind: 'status', status: 204 }, false],
      [{ kind: 'status', status: 204 }, false],
    ]);
    // Every failure is still checked: a failure on purpose says nothing about the signature.
    expect(recorded.every((delivery) => delivery.check.state === 'valid')).toBe(true);
  });

  it('holds the answer of a timeout failure until the caller gives up, answering others meanwhile', async () => {
    await store.failNext(token, 1, { kind: 'timeout' });
    const gaveUp = post(sandbox, BODY, signedHeaders(BODY), AbortSignal.timeout(1_000)).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    // While it is held, the next delivery is answered at once.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await post(sandbox, BODY)).status).toBe(204);
    expect(await gaveUp).toBe('TimeoutError');
    const [next, held] = await store.deliveries(token, { limit: 10 });
    expect(held).toMatchObject({ answer: { kind: 'timeout' }, failedOnPurpose: true, check: { state: 'valid' } });
    expect(next).toMatchObject({ answer: { kind: 'status', status: 204 }, failedOnPurpose: false });
  });

  it('keeps the newest 200 deliveries, reads those after a given one, and shows only later ones once cleared', async () => {
    const recorded = {
      receivedAt: new Date().toISOString(),
      headers: [],
      body: '',
      bodyBytes: 0,
      check: { state: 'no-secret' as const },
      answer: { kind: 'status' as const, status: 204 },
      failedOnPurpose: false,
    };
    const ids: number[] = [];
    for (let index = 0; index < 205; index += 1) ids.push((await store.record(token, party, recorded)).id);
    const kept = await store.deliveries(token, { limit: 1_000 });
    expect(kept.map((delivery) => delivery.id)).toEqual(ids.slice(5).reverse());
    expect(await redis.exists(`web:sandbox:receiver:${token}:delivery:${ids[4]}`)).toBe(0);
    expect((await store.deliveries(token, { limit: 1_000, since: ids[202] })).map((delivery) => delivery.id)).toEqual([ids[204], ids[203]]);
    await store.clearDeliveries(token);
    expect(await store.deliveries(token, { limit: 1_000 })).toEqual([]);
    expect((await post(sandbox, BODY)).status).toBe(204);
    expect((await store.deliveries(token, { limit: 1_000 })).map((delivery) => delivery.id)).toEqual([(ids[204] ?? 0) + 1]);
  });

  it('refuses a token it never made with 404 and records nothing', async () => {
    const answer = await fetch(`${sandbox.url}/sandbox/hooks/${randomBytes(32).toString('base64url')}`, { method: 'POST', body: BODY });
    expect(answer.status).toBe(404);
    expect((await fetch(`${sandbox.url}/sandbox/hooks/short`, { method: 'POST', body: BODY })).status).toBe(404);
    expect(await store.deliveries(token, { limit: 10 })).toEqual([]);
  });

  it('releases an answer it holds when it stops, so that stopping is not held up', async () => {
    const web = await webWith({ SANDBOX: 'true', SHUTDOWN_TIMEOUT_MS: '20000' });
    await store.failNext(token, 1, { kind: 'timeout' });
    const held = fetch(`${web.url}/sandbox/hooks/${token}`, { method: 'POST', headers: signedHeaders(BODY), body: BODY });
    while ((await store.deliveries(token, { limit: 1 })).length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    await web.stop();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect((await held).status).toBe(503);
  });
});
