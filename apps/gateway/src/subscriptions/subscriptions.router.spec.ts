import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { fhirTask } from '@bedrequest/fhir-model/testing';
import { silentLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { NotifierClient } from './notifier.client';
import { subscriptionsRouter } from './subscriptions.router';

const referrer: Principal = {
  partyId: 'referrer-1',
  userId: 'referrer-1',
  role: 'referrer',
  ikNumbers: ['260000001'],
  fhirBase: 'https://hospital.example/fhir',
};
const clinic: Principal = { partyId: 'clinic-1', userId: 'clinic-1', role: 'clinic', ikNumbers: ['510000001'] };

/**
 * What the gateway adds and passes on, against a stand-in for the notifier's internal API (the rules
 * themselves are tested against the real notifier in subscriptions.router.int.spec.ts).
 */
describe('subscriptionsRouter', () => {
  let notifier: Server;
  let notifierUrl: string;
  let calls: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  let answer: { status: number; body?: string };

  beforeAll(async () => {
    notifier = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => notifier.listen(0, '127.0.0.1', resolve));
    notifierUrl = `http://127.0.0.1:${(notifier.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    calls = [];
    answer = { status: 200, body: '{"items":[]}' };
  });
  afterAll(() => new Promise((resolve) => notifier.close(resolve)));

  const subscription = {
    id: 's1',
    eventType: 'AdmissionResponse',
    callbackUrl: 'https://receiver.example.org/',
    secret: 'whsec_x',
    status: 'active',
    disabledReason: null,
  };
  const gateway = (principal: Principal, url = notifierUrl) =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = principal;
        res.locals.accessToken = `token-of-${principal.partyId}`;
        next();
      })
      .use('/api/v1/subscriptions', subscriptionsRouter({ notifier: new NotifierClient(url, 2_000), logger: silentLogger() }));

  it("passes the call on with the caller's token and correlation id, and the answer back", async () => {
    answer = { status: 201, body: JSON.stringify(subscription) };

    const response = await request(gateway(referrer))
      .post('/api/v1/subscriptions')
      .set('x-correlation-id', 'corr-1')
      .send({ eventType: 'AdmissionResponse', callbackUrl: 'https://receiver.example.org/' });

    expect(response.status).toBe(201);
    expect(response.body).toEqual(subscription);
    expect(calls).toEqual([
      {
        method: 'POST',
        url: '/internal/subscriptions',
        headers: expect.objectContaining({ authorization: 'Bearer token-of-referrer-1', 'x-correlation-id': 'corr-1', 'content-type': 'application/json' }),
        body: '{"eventType":"AdmissionResponse","callbackUrl":"https://receiver.example.org/"}',
      },
    ]);
  });

  it('forwards only the query parameters the notifier knows, and encodes path segments', async () => {
    await request(gateway(referrer)).get('/api/v1/subscriptions/a%2Fb/events?since=3&limit=10&access_token=evil');

    expect(calls[0]?.url).toBe('/internal/subscriptions/a%2Fb/events?since=3&limit=10');
    expect(calls[0]?.headers.authorization).toBe('Bearer token-of-referrer-1');
  });

  it("passes an AdmissionOverdue subscription's replayed events back, and refuses an event the list does not describe", async () => {
    const task = fhirTask();
    const overdue = { id: '0b7f6f0e-3c55-4d0b-8f5e-8f1f7c0d2a61', type: 'AdmissionOverdue', timestamp: '2026-12-07T10:00:05.000Z', sequence: 1, data: task };
    answer = { status: 200, body: JSON.stringify({ items: [overdue] }) };
    const replayed = await request(gateway(referrer)).get('/api/v1/subscriptions/s2/events?since=0');
    answer = { status: 200, body: JSON.stringify({ items: [{ ...overdue, type: 'TaskUpdated' }] }) };
    const unknown = await request(gateway(referrer)).get('/api/v1/subscriptions/s2/events?since=0');

    expect([replayed.status, replayed.body]).toEqual([200, { items: [overdue] }]);
    expect(unknown.status).toBe(503);
  });

  it('answers 204 without a body for a deletion', async () => {
    answer = { status: 204 };

    const response = await request(gateway(referrer)).delete('/api/v1/subscriptions/s1');

    expect(response.status).toBe(204);
    expect(calls[0]).toMatchObject({ method: 'DELETE', url: '/internal/subscriptions/s1' });
  });

  it('answers 400 for a body that is not JSON, without calling the notifier', async () => {
    const response = await request(gateway(referrer)).post('/api/v1/subscriptions').set('content-type', 'application/json').send('{"eventType":');

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', message: 'the body is not valid JSON' });
    expect(calls).toEqual([]);
  });

  it("passes on the notifier's 409 for a retry of an erased request's event", async () => {
    const refusal = { error: 'conflict', message: "the request's patient data was erased on 2026-11-22T10:00:00.000Z; its events are not sent any more" };
    answer = { status: 409, body: JSON.stringify(refusal) };

    const response = await request(gateway(referrer)).post('/api/v1/subscriptions/s1/deliveries/3f1c1e0e-8a2b-4c1d-9e5f-0a6b3c2d1e01/retry');

    expect([response.status, response.body]).toEqual([409, refusal]);
  });

  it('answers 403 to a clinic, without calling the notifier', async () => {
    const response = await request(gateway(clinic)).get('/api/v1/subscriptions');

    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'forbidden', message: 'subscriptions are for referring parties' });
    expect(calls).toEqual([]);
  });

  it('answers 503 with Retry-After when the notifier fails, is not reachable or answers outside its contract', async () => {
    answer = { status: 500, body: '{"error":"internal","message":"boom"}' };
    const failing = await request(gateway(referrer)).get('/api/v1/subscriptions');
    const unreachable = await request(gateway(referrer, 'http://127.0.0.1:1')).get('/api/v1/subscriptions');
    answer = { status: 200, body: '{"items":[{"id":"s1"}]}' };
    const misshapen = await request(gateway(referrer)).get('/api/v1/subscriptions');

    for (const response of [failing, unreachable, misshapen]) {
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual({ error: 'unavailable', message: 'subscriptions are temporarily unavailable; please retry' });
    }
  });
});
