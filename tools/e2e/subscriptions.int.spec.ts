import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import express from 'express';
import request from 'supertest';
import { declareTopology } from '@bedrequest/contracts';
import { declareBrokerTopology } from '@bedrequest/messaging';
import { bundleScript, deleteBrokerTopology, silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier, requireToken } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, TestAuthority, localKeys } from '@bedrequest/tokens/testing';
import { errorHandler } from '../../apps/gateway/src/http-errors';
import { NotifierClient } from '../../apps/gateway/src/subscriptions/notifier.client';
import { subscriptionsRouter } from '../../apps/gateway/src/subscriptions/subscriptions.router';

const env = testEnvironment();
// The gateway's subscription routes against the real notifier, started as its own process from its
// test entry point (end-to-end tests live outside the apps, so no app depends on another).
const NOTIFIER = join(__dirname, '..', '..', 'apps', 'notifier');

/**
 * `/api/v1/subscriptions` as the gateway serves it: access tokens checked by requireToken (referrer
 * role only), this router, and a real notifier process on the run's PostgreSQL and RabbitMQ, which
 * verifies the forwarded tokens itself against the keys of a stand-in for the auth service.
 */
describe('/api/v1/subscriptions through the gateway router and a real notifier', () => {
  const namespace = uniqueName('gwsubs');
  let notifier: ChildProcess;
  let app: express.Express;
  let tokens: { alice: string; bob: string; carol: string; clinic: string };
  let authority: TestAuthority;
  let notifierClient: NotifierClient;

  beforeAll(async () => {
    authority = await TestAuthority.start();
    const script = bundleScript(join(NOTIFIER, 'src', 'testing', 'notifier-process.ts'));
    // Provisioning's step, as the local administrator: the notifier declares no topology.
    await declareBrokerTopology(env.amqpUrl, declareTopology(namespace), 5);
    notifier = spawn(process.execPath, [script], {
      env: {
        ...process.env,
        NOTIFIER_PORT: '0',
        NOTIFIER_INTERNAL_PORT: '0',
        LOG_LEVEL: 'silent',
        DATABASE_URL: env.databaseUrl,
        AMQP_URL: env.amqpUrl,
        AMQP_NAMESPACE: namespace,
        NOTIFIER_DB_SCHEMA: uniqueName('notifier'),
        NOTIFIER_TEST_MIGRATIONS_DIR: join(NOTIFIER, 'prisma', 'migrations'),
        ...authority.env,
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const notifierUrl = await new Promise<string>((resolve, reject) => {
      notifier.once('message', (message: { url: string }) => resolve(message.url));
      notifier.once('exit', (code) => reject(new Error(`the notifier exited with ${code}`)));
    });

    const verifier = createTokenVerifier({ keys: localKeys(authority.key), issuer: ISSUER, audience: AUDIENCE });
    tokens = {
      alice: await authority.referrer('referrer-alice'),
      bob: await authority.referrer('referrer-bob'),
      carol: await authority.referrer('referrer-carol'),
      clinic: await authority.clinic('clinic-user', '510000001'),
    };
    notifierClient = new NotifierClient(notifierUrl);
    app = express()
      .use('/api/v1/subscriptions', requireToken({ verifier, roles: ['referrer'] }), subscriptionsRouter({ notifier: notifierClient, logger: silentLogger() }))
      .use(errorHandler(silentLogger()));
  });

  afterAll(async () => {
    await new Promise((resolve) => {
      notifier.once('exit', resolve);
      notifier.kill('SIGTERM');
    });
    await deleteBrokerTopology(env.amqpUrl, declareTopology(namespace));
    await notifierClient.close();
    await authority.stop();
  });

  const as = (who: keyof typeof tokens) => ({
    post: (body: unknown) =>
      request(app)
        .post('/api/v1/subscriptions')
        .set('Authorization', `Bearer ${tokens[who]}`)
        .send(body as object),
    get: (path = '') => request(app).get(`/api/v1/subscriptions${path}`).set('Authorization', `Bearer ${tokens[who]}`),
    put: (path: string, body: unknown) =>
      request(app)
        .put(`/api/v1/subscriptions${path}`)
        .set('Authorization', `Bearer ${tokens[who]}`)
        .send(body as object),
    delete: (path: string) => request(app).delete(`/api/v1/subscriptions${path}`).set('Authorization', `Bearer ${tokens[who]}`),
  });

  it('creates (201), updates by a second POST (200, same id and secret), reads, changes (PUT 200) and deletes (204)', async () => {
    const created = await as('alice').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/first' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      eventType: 'AdmissionResponse',
      callbackUrl: 'http://127.0.0.1:9/first',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/),
      status: 'active',
      disabledReason: null,
      // The options' defaults (docs/webhooks.md, "Subscription options").
      payload: 'full',
      heartbeatSeconds: null,
      previousSecretExpiresAt: null,
      lastError: null,
    });
    const { id, secret } = created.body as { id: string; secret: string };

    const again = await as('alice').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/second' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ id, secret, callbackUrl: 'http://127.0.0.1:9/second' });

    expect((await as('alice').get()).body).toEqual({ items: [again.body] });
    expect((await as('alice').get(`/${id}`)).body).toEqual(again.body);

    const changed = await as('alice').put(`/${id}`, { callbackUrl: 'https://receiver.example.org/hook' });
    expect(changed.status).toBe(200);
    expect(changed.body).toEqual({ ...again.body, callbackUrl: 'https://receiver.example.org/hook' });

    expect((await as('alice').delete(`/${id}`)).status).toBe(204);
    expect((await as('alice').get(`/${id}`)).status).toBe(404);
    expect((await as('alice').get()).body).toEqual({ items: [] });
  });

  it("hides one referrer's subscription from another: 404 on GET, PUT and DELETE, absent from the list", async () => {
    const { body } = await as('alice').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/alice' });
    const id = (body as { id: string }).id;

    for (const response of [
      await as('bob').get(`/${id}`),
      await as('bob').put(`/${id}`, { callbackUrl: 'http://127.0.0.1:9/bob' }),
      await as('bob').delete(`/${id}`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'not_found', message: 'no such subscription' });
    }
    expect((await as('bob').get()).body).toEqual({ items: [] });
    expect((await as('alice').get(`/${id}`)).body).toMatchObject({ callbackUrl: 'http://127.0.0.1:9/alice' });
    expect((await as('alice').get('/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await as('alice').get('/..%2F..%2Fhealth')).status).toBe(404);
  });

  it.each([
    [{ eventType: 'SomethingElse', callbackUrl: 'https://receiver.example.org/' }],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'receiver.example.org/hook' }],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'ftp://receiver.example.org/hook' }],
    [{ eventType: 'AdmissionResponse' }],
  ])('answers 400 with {error, message} for %j', async (body) => {
    const response = await as('alice').post(body);

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', message: expect.any(String) });
  });

  it('names the event types a subscription can be for when refusing another', async () => {
    const response = await as('alice').post({ eventType: 'TaskUpdated', callbackUrl: 'https://receiver.example.org/' });

    expect([response.status, response.body]).toEqual([
      400,
      { error: 'invalid_request', message: 'eventType: must be one of AdmissionResponse, AdmissionOverdue' },
    ]);
  });

  it('keeps an AdmissionOverdue subscription beside the AdmissionResponse one: its own id and secret, re-addressed by a second POST', async () => {
    const responses = await as('carol').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/answers' });
    const created = await as('carol').post({ eventType: 'AdmissionOverdue', callbackUrl: 'http://127.0.0.1:9/overdue' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ eventType: 'AdmissionOverdue', callbackUrl: 'http://127.0.0.1:9/overdue', status: 'active', disabledReason: null });
    const overdue = created.body as { id: string; secret: string };
    expect(overdue.id).not.toBe((responses.body as { id: string }).id);
    expect(overdue.secret).not.toBe((responses.body as { secret: string }).secret);

    const again = await as('carol').post({ eventType: 'AdmissionOverdue', callbackUrl: 'http://127.0.0.1:9/overdue-moved' });
    expect([again.status, again.body]).toEqual([200, { ...created.body, callbackUrl: 'http://127.0.0.1:9/overdue-moved' }]);
    expect(((await as('carol').get()).body as { items: { eventType: string }[] }).items.map((item) => item.eventType).sort()).toEqual([
      'AdmissionOverdue',
      'AdmissionResponse',
    ]);
    expect(await as('carol').get(`/${overdue.id}/events?since=0`)).toMatchObject({ status: 200, body: { items: [] } });
    expect(await as('carol').get(`/${overdue.id}/deliveries`)).toMatchObject({ status: 200, body: { items: [] } });
    expect((await as('carol').put(`/${overdue.id}`, { callbackUrl: 'http://127.0.0.1:9/overdue-put' })).body).toMatchObject({
      id: overdue.id,
      secret: overdue.secret,
    });
    expect((await as('carol').delete(`/${overdue.id}`)).status).toBe(204);
    expect((await as('carol').get(`/${(responses.body as { id: string }).id}`)).status).toBe(200);
  });

  it('refuses unknown fields with 400 naming each of them, on POST and PUT, and changes nothing', async () => {
    const before = (await as('alice').get()).body;
    const refusedPost = await as('alice').post({
      eventType: 'AdmissionResponse',
      callbackUrl: 'http://127.0.0.1:9/strict',
      secret: 'whsec_chosen',
      events: ['all'],
    });
    expect([refusedPost.status, refusedPost.body]).toEqual([400, { error: 'invalid_request', message: 'secret: not allowed; events: not allowed' }]);
    expect((await as('alice').get()).body).toEqual(before);

    const { body } = await as('alice').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/strict' });
    const subscription = body as { id: string };
    const refusedPut = await as('alice').put(`/${subscription.id}`, { callbackUrl: 'http://127.0.0.1:9/elsewhere', eventType: 'AdmissionResponse' });
    expect([refusedPut.status, refusedPut.body]).toEqual([400, { error: 'invalid_request', message: 'eventType: not allowed' }]);
    expect((await as('alice').get(`/${subscription.id}`)).body).toEqual(body);
  });

  it('answers 400 for a PUT without an absolute http(s) callbackUrl', async () => {
    const { body } = await as('bob').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/bob' });
    expect((await as('bob').put(`/${(body as { id: string }).id}`, { callbackUrl: '/relative' })).status).toBe(400);
  });

  it('passes the delivery log, the events since a sequence number and the retry call through', async () => {
    const { body } = await as('bob').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/bob' });
    const id = (body as { id: string }).id;

    expect(await as('bob').get(`/${id}/deliveries`)).toMatchObject({ status: 200, body: { items: [] } });
    expect(await as('bob').get(`/${id}/events?since=0`)).toMatchObject({ status: 200, body: { items: [] } });
    expect((await as('bob').get(`/${id}/events?since=minus-one`)).status).toBe(400);
    expect((await as('alice').get(`/${id}/events?since=0`)).status).toBe(404);
    const retry = await request(app)
      .post(`/api/v1/subscriptions/${id}/deliveries/00000000-0000-4000-8000-000000000000/retry`)
      .set('Authorization', `Bearer ${tokens.bob}`);
    expect(retry.status).toBe(404);
  });

  it('takes payload and heartbeatSeconds on POST and PUT (one left out keeps its setting), and rotates the secret for its owner only', async () => {
    const created = await as('carol').post({
      eventType: 'AdmissionResponse',
      callbackUrl: 'http://127.0.0.1:9/options',
      payload: 'id-only',
      heartbeatSeconds: 3600,
    });
    expect(created.body).toMatchObject({ payload: 'id-only', heartbeatSeconds: 3600, previousSecretExpiresAt: null });
    const { id, secret } = created.body as { id: string; secret: string };

    expect((await as('carol').put(`/${id}`, { callbackUrl: 'http://127.0.0.1:9/options' })).body).toMatchObject({ payload: 'id-only', heartbeatSeconds: 3600 });
    expect((await as('carol').put(`/${id}`, { callbackUrl: 'http://127.0.0.1:9/options', heartbeatSeconds: null, payload: 'full' })).body).toMatchObject({
      payload: 'full',
      heartbeatSeconds: null,
    });
    for (const refused of [{ payload: 'ids' }, { heartbeatSeconds: 59 }, { heartbeatSeconds: 86_401 }]) {
      const response = await as('carol').put(`/${id}`, { callbackUrl: 'http://127.0.0.1:9/options', ...refused });
      expect([response.status, (response.body as { error: string }).error]).toEqual([400, 'invalid_request']);
    }

    const rotate = (who: keyof typeof tokens) => request(app).post(`/api/v1/subscriptions/${id}/rotate-secret`).set('Authorization', `Bearer ${tokens[who]}`);
    expect((await rotate('bob')).status).toBe(404);
    const rotated = await rotate('carol');
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id, secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: expect.any(String) });
    expect((rotated.body as { secret: string }).secret).not.toBe(secret);
    // The default overlap: 24 hours.
    expect(Date.parse((rotated.body as { previousSecretExpiresAt: string }).previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23.9 * 3600_000);
    expect((await as('carol').get(`/${id}`)).body).toEqual(rotated.body);
    expect((await as('carol').delete(`/${id}`)).status).toBe(204);
  });

  it('passes the delivery log’s cursor, status and since on, and refuses a bad one with 400 naming it, before asking the notifier', async () => {
    const { body } = await as('carol').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/carol-log' });
    const id = (body as { id: string }).id;
    const cursor = Buffer.from('seq:7').toString('base64url');

    expect(await as('carol').get(`/${id}/deliveries?limit=2&status=failed,withheld&since=2026-12-07T08:00:00Z&cursor=${cursor}`)).toMatchObject({
      status: 200,
      body: { items: [] },
    });
    for (const [query, message] of [
      ['cursor=not-one', "cursor must be a cursor as the log's next writes it"],
      ['status=gone', 'status must be one or more of pending, delivered, failed, withheld, comma-separated'],
      ['since=2026-12-07', 'since must be an ISO 8601 time with Z or an offset (e.g. 2026-12-07T08:00:00Z)'],
      ['limit=1001', 'limit must be a number from 1 to 1000'],
    ]) {
      expect(await as('carol').get(`/${id}/deliveries?${query}`)).toMatchObject({ status: 400, body: { error: 'invalid_request', message } });
    }
    // The gateway refuses before the notifier looks: even another party's subscription gets the 400.
    expect((await as('alice').get(`/${id}/deliveries?status=gone`)).status).toBe(400);
    expect((await as('alice').get(`/${id}/deliveries?status=failed`)).status).toBe(404);
  });

  it('refuses clinic tokens with 403 and missing tokens with 401', async () => {
    expect((await as('clinic').get()).status).toBe(403);
    expect((await as('clinic').post({ eventType: 'AdmissionResponse', callbackUrl: 'http://127.0.0.1:9/' })).body).toEqual({
      error: 'forbidden',
      message: 'a clinic token may not use this endpoint',
    });
    expect((await request(app).get('/api/v1/subscriptions')).status).toBe(401);
  });
});
