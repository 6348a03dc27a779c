import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { listen } from '@bedrequest/observability';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, TestAuthority, localKeys } from '@bedrequest/tokens/testing';
import type { Resolve } from '@bedrequest/http';
import { RequestErasureRepository } from '../erasure/request-erasure.repository';
import { EventRepository, type IncomingEvent } from '../events/event.repository';
import { notifierTables, openNotifierDatabase, type NotifierDatabase } from '../persistence/database';
import { openSealedFields, type SealedFields } from '../persistence/sealed-fields';
import { incomingEvent } from '../testing/notifier-store';
import { SubscriptionsApi } from '../testing/notifier-test-kit';
import { SubscriptionRepository } from './subscription.repository';
import { SubscriptionService, type SubscriptionView } from './subscription.service';
import { subscriptionsRouter } from './subscriptions.router';

const env = testEnvironment();
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Public names resolve to a documentation-free public address; these to internal ones. */
const fakeDns: Resolve = async (hostname) => {
  const table: Record<string, string> = {
    'hooks.example.org': '93.184.215.14',
    'intranet.example.org': '10.20.30.40',
    'metadata.example.org': '169.254.169.254',
  };
  const address = table[hostname];
  if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

describe("the notifier's internal subscription API against the real PostgreSQL", () => {
  let prisma: NotifierDatabase;
  let fields: SealedFields;
  const servers: Server[] = [];
  let api: SubscriptionsApi;
  let productionApi: SubscriptionsApi;
  let plainHttpApi: SubscriptionsApi;
  let authority: TestAuthority;

  const serve = async (rules: { allowPrivate: boolean; requireHttps: boolean }) => {
    const repository = new SubscriptionRepository(prisma, notifierTables(schema), fields);
    const service = new SubscriptionService(repository, { ...rules, resolve: fakeDns });
    const verifier = createTokenVerifier({ keys: localKeys(authority.key), issuer: ISSUER, audience: AUDIENCE });
    const server = await listen(express().use('/internal/subscriptions', subscriptionsRouter(service, verifier, silentLogger())), 0, '127.0.0.1');
    servers.push(server);
    return new SubscriptionsApi(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, authority);
  };
  const schema = uniqueName('notifier');

  beforeAll(async () => {
    authority = await TestAuthority.start();
    prisma = await openNotifierDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    ({ fields } = await openSealedFields({ NODE_ENV: 'test', NOTIFIER_DB_SCHEMA: schema }, prisma));
    api = await serve({ allowPrivate: true, requireHttps: false });
    productionApi = await serve({ allowPrivate: false, requireHttps: true });
    plainHttpApi = await serve({ allowPrivate: false, requireHttps: false });
  });

  afterAll(async () => {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    await prisma.$disconnect();
    await authority.stop();
  });

  const post = (party: string, body: unknown, target = api) => target.call<SubscriptionView & { error?: string; message?: string }>(party, 'POST', '', body);

  it('creates a subscription with a new id and a whsec_ secret of at least 24 random bytes: 201', async () => {
    const created = await post('party-create', { eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/bedrequest' });

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(UUID),
      eventType: 'AdmissionResponse',
      callbackUrl: 'https://hooks.example.org/bedrequest',
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+=*$/),
      status: 'active',
      disabledReason: null,
      // The options' defaults (docs/webhooks.md, "Subscription options").
      payload: 'full',
      heartbeatSeconds: null,
      previousSecretExpiresAt: null,
      lastError: null,
    });
    expect(Buffer.from(created.body.secret.slice('whsec_'.length), 'base64').length).toBeGreaterThanOrEqual(24);
  });

  it('a second POST for the same eventType updates the address and keeps id and secret: 200', async () => {
    const first = await post('party-twice', { eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/one' });
    const second = await post('party-twice', { eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/two' });

    expect(second.status).toBe(200);
    expect(second.body).toEqual({ ...first.body, callbackUrl: 'https://hooks.example.org/two' });
    expect((await api.call('party-twice', 'GET', '')).body).toEqual({ items: [second.body] });
  });

  it("lists only the caller's own subscriptions", async () => {
    const own = await post('party-list', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/a' });
    await post('party-other', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/b' });

    expect(await api.call('party-list', 'GET', '')).toEqual({ status: 200, body: { items: [own.body] } });
    expect(await api.call('party-nobody', 'GET', '')).toEqual({ status: 200, body: { items: [] } });
  });

  it("reads one subscription; another party's or an unknown id is 404", async () => {
    const { body } = await post('party-read', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/r' });

    expect(await api.call('party-read', 'GET', `/${body.id}`)).toEqual({ status: 200, body });
    for (const [party, id] of [
      ['party-thief', body.id],
      ['party-read', '00000000-0000-4000-8000-000000000000'],
      ['party-read', 'not-a-uuid'],
    ]) {
      expect(await api.call(party!, 'GET', `/${id}`)).toEqual({ status: 404, body: { error: 'not_found', message: 'no such subscription' } });
    }
  });

  it('changes the address with PUT: 200 with the subscription, same id and secret; 404 for another party', async () => {
    const { body } = await post('party-put', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/old' });

    const changed = await api.call('party-put', 'PUT', `/${body.id}`, { callbackUrl: 'http://hooks.example.org/new' });

    expect(changed).toEqual({ status: 200, body: { ...body, callbackUrl: 'http://hooks.example.org/new' } });
    expect((await api.call('party-thief', 'PUT', `/${body.id}`, { callbackUrl: 'http://evil.example/' })).status).toBe(404);
    expect((await api.call('party-put', 'PUT', `/${body.id}`, { callbackUrl: 'not a url' })).status).toBe(400);
    expect(await api.call('party-put', 'PUT', `/${body.id}`, { callbackUrl: 'http://hooks.example.org/newer', status: 'active' })).toEqual({
      status: 400,
      body: { error: 'invalid_request', message: 'status: not allowed' },
    });
    expect((await api.get('party-put', body.id)).callbackUrl).toBe('http://hooks.example.org/new');
  });

  it('deletes with 204; afterwards, and for another party, 404', async () => {
    const { body } = await post('party-delete', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/d' });

    expect((await api.call('party-thief', 'DELETE', `/${body.id}`)).status).toBe(404);
    expect(await api.call('party-delete', 'DELETE', `/${body.id}`)).toEqual({ status: 204, body: undefined });
    expect((await api.call('party-delete', 'DELETE', `/${body.id}`)).status).toBe(404);
    expect((await api.call('party-delete', 'GET', `/${body.id}`)).status).toBe(404);
    // A new subscription after the deletion is a new one: new id, new secret.
    const again = await post('party-delete', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/d' });
    expect(again.status).toBe(201);
    expect(again.body.id).not.toBe(body.id);
    expect(again.body.secret).not.toBe(body.secret);
  });

  it.each([
    [{ eventType: 'TaskUpdated', callbackUrl: 'https://hooks.example.org/' }, 'eventType: must be one of AdmissionResponse, AdmissionOverdue'],
    [{ callbackUrl: 'https://hooks.example.org/' }, 'eventType: is required'],
    [{ eventType: 'AdmissionResponse' }, 'callbackUrl: is required'],
    [{ eventType: 'AdmissionResponse', callbackUrl: '/relative/path' }, 'callbackUrl: must be an absolute http or https URL'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'hooks.example.org/x' }, 'callbackUrl: must be an absolute http or https URL'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'ftp://hooks.example.org/x' }, 'callbackUrl: must be an absolute http or https URL'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'javascript:alert(1)' }, 'callbackUrl: must be an absolute http or https URL'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 42 }, 'callbackUrl: must be a string'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'https://user:pw@hooks.example.org/' }, 'callbackUrl: must not contain credentials'],
    [{ eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/', secret: 'whsec_mine' }, 'secret: not allowed'],
    [['AdmissionResponse'], 'body: must be a JSON object'],
  ])('refuses %j with 400', async (body, message) => {
    expect(await post('party-invalid', body)).toEqual({ status: 400, body: { error: 'invalid_request', message } });
  });

  it('refuses a body that is not JSON with 400', async () => {
    const response = await fetch(`${api.baseUrl}/internal/subscriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await authority.referrer('party-invalid')}`, 'content-type': 'application/json' },
      body: '{"eventType": ',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request', message: 'the body is not valid JSON' });
  });

  it("refuses a call without a referrer's valid token with 401 (403 for a clinic's), whatever x-viewer-party claims", async () => {
    const created = await post('party-owner', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/owned' });
    const forged = { 'x-viewer-party': 'party-owner' };
    const calls = [
      fetch(`${api.baseUrl}/internal/subscriptions`, { headers: forged }),
      fetch(`${api.baseUrl}/internal/subscriptions/${created.body.id}`, { headers: forged }),
      fetch(`${api.baseUrl}/internal/subscriptions`, { headers: { ...forged, authorization: 'Bearer not-a-token' } }),
    ];
    for (const response of await Promise.all(calls)) {
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: 'unauthorized' });
    }
    const clinic = await fetch(`${api.baseUrl}/internal/subscriptions`, {
      headers: { authorization: `Bearer ${await authority.clinic('clinic-user', '510000001')}` },
    });
    expect(clinic.status).toBe(403);
    // Another referrer's token with the owner's party in the header sees nothing of the owner's.
    expect(await api.call('party-other', 'GET', `/${created.body.id}`)).toMatchObject({ status: 404 });
  });

  it('refuses a delivery log page size out of range', async () => {
    const { body } = await post('party-limit', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/l' });
    expect((await api.call('party-limit', 'GET', `/${body.id}/deliveries?limit=0`)).status).toBe(400);
    expect(await api.call('party-limit', 'GET', `/${body.id}/deliveries?limit=5`)).toEqual({ status: 200, body: { items: [] } });
  });

  it.each([
    ['deliveries?limit=1001', 'limit must be a number from 1 to 1000'],
    ['deliveries?limit=1.5', 'limit must be a number from 1 to 1000'],
    ['events?since=-1', 'since must be a sequence number (0 or more)'],
    ['events?since=1e3', 'since must be a sequence number (0 or more)'],
    ['events?since=1&since=2', 'since must be a sequence number (0 or more)'],
  ])('refuses %s with a message naming the parameter', async (query, message) => {
    const { body } = await post(`party-params-${query}`, { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/p' });
    expect(await api.call(`party-params-${query}`, 'GET', `/${body.id}/${query}`)).toEqual({ status: 400, body: { error: 'invalid_request', message } });
  });

  it('pages the event log from a sequence number, with a limit', async () => {
    const { body } = await post('party-pages', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/q' });
    expect(await api.call('party-pages', 'GET', `/${body.id}/events?since=7&limit=1000`)).toEqual({ status: 200, body: { items: [] } });
  });

  describe('the delivery log, paged', () => {
    type Log = { items: { eventId: string; sequence: number; status: string; withheld: unknown }[]; next?: string };
    /** A subscription of `party` with `count` stored events (sequence 1..count), the odd ones given up, the even ones delivered. */
    const withEvents = async (party: string, count: number) => {
      const { body } = await post(party, { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/log' });
      const events = Array.from({ length: count }, () => incomingEvent(party, `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`));
      await new EventRepository(prisma, notifierTables(schema), fields).recordAll(events);
      for (const [index, event] of events.entries()) {
        await prisma.delivery.update({ where: { eventId: event.eventId }, data: { status: index % 2 === 0 ? 'failed' : 'delivered', nextAttemptAt: null } });
      }
      return { id: body.id, events };
    };
    const page = (party: string, id: string, query: string) => api.call<Log>(party, 'GET', `/${id}/deliveries${query}`);

    it('pages newest first by an opaque cursor, every entry once, an event stored meanwhile on the first page only', async () => {
      const { id, events } = await withEvents('party-log-pages', 5);
      const first = await page('party-log-pages', id, '?limit=2&status=failed,delivered');
      expect(first.body.items.map((item) => item.sequence)).toEqual([5, 4]);
      expect(first.body.next).toMatch(/^\?limit=2&status=failed%2Cdelivered&cursor=[A-Za-z0-9_-]+$/);

      // Stored between two pages: above the cursor, so the pages that follow are unchanged.
      const late = incomingEvent('party-log-pages', 'https://referrer.example/fhir/ServiceRequest/late');
      await new EventRepository(prisma, notifierTables(schema), fields).recordAll([late]);
      await prisma.delivery.update({ where: { eventId: late.eventId }, data: { status: 'failed', nextAttemptAt: null } });
      const second = await page('party-log-pages', id, first.body.next!);
      const third = await page('party-log-pages', id, second.body.next!);
      expect([second.body.items.map((item) => item.sequence), third.body.items.map((item) => item.sequence), third.body.next]).toEqual([
        [3, 2],
        [1],
        undefined,
      ]);
      expect(third.body.items[0]).toMatchObject({ eventId: events[0]!.eventId, status: 'failed', withheld: null });
      expect((await page('party-log-pages', id, '?limit=2')).body.items.map((item) => item.sequence)).toEqual([6, 5]);
      // Without parameters: as before, up to 100, no next.
      expect((await page('party-log-pages', id, '')).body).toEqual({ items: expect.any(Array) });
    });

    it('filters by status and by the time the event was stored', async () => {
      const { id, events } = await withEvents('party-log-filters', 4);
      const failed = await page('party-log-filters', id, '?status=failed');
      expect(failed.body.items.map((item) => [item.sequence, item.status])).toEqual([
        [3, 'failed'],
        [1, 'failed'],
      ]);
      await prisma.delivery.updateMany({
        where: { eventId: { in: [events[0]!.eventId, events[1]!.eventId] } },
        data: { createdAt: new Date('2026-01-01T00:00:00Z') },
      });
      const since = await page('party-log-filters', id, `?since=${encodeURIComponent('2026-06-01T00:00:00+02:00')}`);
      expect(since.body.items.map((item) => item.sequence)).toEqual([4, 3]);
      expect((await page('party-log-filters', id, '?status=withheld')).body).toEqual({ items: [] });
    });

    it.each([
      ['cursor=abc', "cursor must be a cursor as the log's next writes it"],
      ['cursor=c2VxOjA', "cursor must be a cursor as the log's next writes it"],
      ['status=lost', 'status must be one or more of pending, delivered, failed, withheld, comma-separated'],
      ['status=failed,', 'status must be one or more of pending, delivered, failed, withheld, comma-separated'],
      ['since=yesterday', 'since must be an ISO 8601 time with Z or an offset (e.g. 2026-12-07T08:00:00Z)'],
      ['since=2026-12-07T08:00:00', 'since must be an ISO 8601 time with Z or an offset (e.g. 2026-12-07T08:00:00Z)'],
      ['limit=0&status=failed', 'limit must be a number from 1 to 1000'],
    ])('refuses deliveries?%s with 400 naming the parameter', async (query, message) => {
      const { body } = await post(`party-log-${query}`, { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/p' });
      expect(await api.call(`party-log-${query}`, 'GET', `/${body.id}/deliveries?${query}`)).toEqual({
        status: 400,
        body: { error: 'invalid_request', message },
      });
    });
  });

  describe("after a request's patient data was erased", () => {
    const erasedAt = new Date('2026-11-20T09:30:00.000Z');
    const event = (partyId: string, requestIdentifier: string): IncomingEvent =>
      incomingEvent(partyId, requestIdentifier, { data: { resourceType: 'Task', status: 'accepted', note: [{ text: 'Patientin bitte mit Röntgenbild' }] } });
    /** A subscription of `party` with an event of an erased request and one of another request, both pending before the erasure. */
    const subscribedWithErasedEvent = async (party: string) => {
      const { body } = await post(party, { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/erased' });
      const tables = notifierTables(schema);
      const request = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
      const [ofErased, ofOther] = [event(party, request), event(party, `${request}-other`)];
      await new EventRepository(prisma, tables, fields).recordAll([ofErased, ofOther]);
      await new RequestErasureRepository(prisma, tables, fields).erase({ requestIdentifier: request, referrerPartyId: party, erasedAt });
      return { subscription: body, ofErased: ofErased.eventId, ofOther: ofOther.eventId };
    };
    const deliveries = async (eventIds: string[]) =>
      (
        await prisma.delivery.findMany({
          where: { eventId: { in: eventIds } },
          select: { eventId: true, status: true, nextAttemptAt: true, attemptCount: true },
        })
      ).sort((a, b) => eventIds.indexOf(a.eventId) - eventIds.indexOf(b.eventId));

    it('refuses to send one of its events again with 409, and the event stays given up; others are sent again', async () => {
      const { subscription, ofErased, ofOther } = await subscribedWithErasedEvent('party-erased-retry');

      expect(await api.call('party-erased-retry', 'POST', `/${subscription.id}/deliveries/${ofErased}/retry`)).toEqual({
        status: 409,
        body: { error: 'conflict', message: "the request's patient data was erased on 2026-11-20T09:30:00.000Z; its events are not sent any more" },
      });
      expect(await api.call('party-erased-retry', 'POST', `/${subscription.id}/deliveries/${ofOther}/retry`)).toEqual({
        status: 202,
        body: { status: 'scheduled', message: 'the event is sent again now' },
      });
      expect(await deliveries([ofErased, ofOther])).toEqual([
        { eventId: ofErased, status: 'withheld', nextAttemptAt: null, attemptCount: 0 },
        { eventId: ofOther, status: 'pending', nextAttemptAt: expect.any(Date), attemptCount: 0 },
      ]);
      // Another party's subscription still answers 404, whatever the event.
      expect((await api.call('party-thief', 'POST', `/${subscription.id}/deliveries/${ofErased}/retry`)).status).toBe(404);
    });

    it('a new address or re-enabling makes the pending events due now, not those of the erased request', async () => {
      const { subscription, ofErased, ofOther } = await subscribedWithErasedEvent('party-erased-put');
      const later = new Date(Date.now() + 3_600_000);
      await prisma.delivery.update({ where: { eventId: ofOther }, data: { nextAttemptAt: later, attemptCount: 3 } });
      await prisma.subscription.update({ where: { id: subscription.id }, data: { status: 'disabled', disabledReason: 'the receiver answered 410 Gone' } });

      expect((await api.call('party-erased-put', 'PUT', `/${subscription.id}`, { callbackUrl: 'http://hooks.example.org/repaired' })).status).toBe(200);

      const [erased, other] = await deliveries([ofErased, ofOther]);
      expect(erased).toEqual({ eventId: ofErased, status: 'withheld', nextAttemptAt: null, attemptCount: 0 });
      expect(other).toMatchObject({ status: 'pending', attemptCount: 0 });
      expect(other!.nextAttemptAt!.getTime()).toBeLessThan(later.getTime());
    });
  });

  describe('in production mode (WEBHOOK_ALLOW_PRIVATE and WEBHOOK_REQUIRE_HTTPS not set)', () => {
    it.each([
      ['https://127.0.0.1:8080/hook', 'loopback'],
      ['https://localhost.:8080/hook', 'cannot be resolved'],
      ['https://[::1]/hook', 'loopback'],
      ['https://[::ffff:169.254.169.254]/latest/meta-data', 'link-local'],
      ['https://10.0.0.5/hook', 'private'],
      ['https://2130706433/hook', 'loopback'],
      ['https://intranet.example.org/hook', 'private'],
      ['https://metadata.example.org/', 'link-local'],
      ['https://100.64.1.1/hook', 'CGNAT'],
    ])('refuses the callback URL %s (%s) with 400', async (callbackUrl, reason) => {
      const refused = await post('party-prod', { eventType: 'AdmissionResponse', callbackUrl }, productionApi);

      expect(refused.status).toBe(400);
      expect(refused.body.message).toContain(reason);
    });

    it('refuses a private address on PUT too', async () => {
      const { body } = await post('party-prod-put', { eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/p' }, productionApi);
      const refused = await productionApi.call('party-prod-put', 'PUT', `/${body.id}`, { callbackUrl: 'https://192.168.0.10/' });
      expect(refused.status).toBe(400);
    });

    it('accepts a public address', async () => {
      expect((await post('party-prod-ok', { eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/ok' }, productionApi)).status).toBe(201);
    });

    it('refuses an http:// callback URL with 400, on POST and on PUT, and keeps the address it had', async () => {
      const refusal = { error: 'invalid_request', message: 'callbackUrl: must be an https URL: this service sends webhooks over https only' };
      expect(await post('party-prod-http', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/plain' }, productionApi)).toEqual({
        status: 400,
        body: refusal,
      });
      expect(await productionApi.call('party-prod-http', 'GET', '')).toEqual({ status: 200, body: { items: [] } });

      const { body } = await post('party-prod-http', { eventType: 'AdmissionResponse', callbackUrl: 'https://hooks.example.org/tls' }, productionApi);
      expect(await productionApi.call('party-prod-http', 'PUT', `/${body.id}`, { callbackUrl: 'http://hooks.example.org/plain' })).toEqual({
        status: 400,
        body: refusal,
      });
      expect((await productionApi.get('party-prod-http', body.id)).callbackUrl).toBe('https://hooks.example.org/tls');
    });

    it('accepts an http:// callback URL with WEBHOOK_REQUIRE_HTTPS=false, its host still checked', async () => {
      const created = await post('party-plain', { eventType: 'AdmissionResponse', callbackUrl: 'http://hooks.example.org/plain' }, plainHttpApi);
      expect(created).toMatchObject({ status: 201, body: { callbackUrl: 'http://hooks.example.org/plain' } });
      expect((await plainHttpApi.call('party-plain', 'PUT', `/${created.body.id}`, { callbackUrl: 'http://hooks.example.org/other' })).status).toBe(200);
      expect((await post('party-plain', { eventType: 'AdmissionResponse', callbackUrl: 'http://10.0.0.5/hook' }, plainHttpApi)).status).toBe(400);
    });
  });
});
