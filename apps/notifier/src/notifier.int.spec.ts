import { randomBytes, randomUUID } from 'node:crypto';
import { WebhookReceiver, requestOf, waitFor } from '@bedrequest/testing';
import { requestIdentifier } from './testing/notifier-test-kit';
import { notifierUnderTest, subscribedParty, type NotifierUnderTest } from './testing/notifier-under-test';

// Short retry delays (≈300 ms each, ±10 %) so that a failing receiver is retried within the test.
const RETRY_MS = 300;

/**
 * For the checks that something did not happen: proof that the notifier's delivery got past the point
 * where it would have, instead of a sleep. A later event, of a party and to a receiver of their own,
 * refused three times: its fourth attempt comes three retry delays after this point at the earliest.
 * The worker claims what is due in the order it fell due, so by then whatever fell due within about
 * two retry delays of this point (an event stored before the later one, a retry scheduled before this
 * point) has been attempted, and answered.
 */
function pastThisPointOf(notifier: NotifierUnderTest): () => Promise<void> {
  const later = new WebhookReceiver();
  later.answer = (webhook) => (webhook.attempt < 4 ? { status: 503 } : { status: 204 });
  beforeAll(() => later.start());
  afterAll(() => later.stop());
  return async () => {
    const { party } = await subscribedParty(notifier.api, later);
    const eventId = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => later.accepted().some((webhook) => webhook.id === eventId), { timeoutMs: 30_000, what: 'the fourth attempt of a later event' });
  };
}

describe('notifier with the real RabbitMQ, PostgreSQL and a local webhook receiver', () => {
  const notifier = notifierUnderTest({ WEBHOOK_RETRY_SCHEDULE: Array(6).fill(`${RETRY_MS}ms`).join(',') });
  const pastThisPoint = pastThisPointOf(notifier);
  // A receiver of each test's own: a late attempt of an earlier test cannot reach it.
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  afterEach(() => receiver.stop());

  it('delivers a signed AdmissionResponse with the event id, a sequence number and the Task', async () => {
    const { party } = await subscribedParty(notifier.api, receiver);
    const identifier = requestIdentifier();
    const occurredAt = new Date();

    const eventId = await notifier.publish({ partyId: party, requestIdentifier: identifier, occurredAt });
    const [webhook] = await waitFor(() => receiver.accepted().length === 1 && receiver.accepted(), { what: 'the webhook' });
    const arrived = new Date();

    expect(webhook!.verified).toBe(true);
    expect(webhook!.headers).toMatchObject({ 'content-type': 'application/json', 'webhook-id': eventId });
    // The time of sending (whole seconds): between the publish and the arrival.
    const timestamp = Number(webhook!.headers['webhook-timestamp']);
    expect(timestamp).toBeGreaterThanOrEqual(Math.floor(occurredAt.getTime() / 1000));
    expect(timestamp).toBeLessThanOrEqual(Math.ceil(arrived.getTime() / 1000));
    expect(webhook!.body).toEqual({
      id: eventId,
      type: 'AdmissionResponse',
      timestamp: occurredAt.toISOString(),
      sequence: 1,
      data: expect.objectContaining({ resourceType: 'Task', basedOn: [{ identifier: { system: 'urn:ietf:rfc:3986', value: identifier } }] }),
    });
  });

  it("delivers nothing for a party without a subscription, and only the owner's events to a subscription", async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    await notifier.publish({ partyId: `stranger-${randomUUID()}`, requestIdentifier: requestIdentifier() });
    const own = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });

    await waitFor(() => receiver.accepted().length === 1, { what: 'the own event' });
    // The stranger's event came first on the same queue, so it was stored (or not) no later than the
    // own one: the subscription's deliveries, stored with their events, are the own one's alone.
    expect((await notifier.api.deliveries(party, subscription.id)).map((entry) => entry.eventId)).toEqual([own]);
    await pastThisPoint();
    expect(receiver.received.map((webhook) => webhook.id)).toEqual([own]);
  });

  it('keeps retrying a failing receiver with the same webhook-id and logs every attempt', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    receiver.answer = (webhook) => (webhook.attempt <= 3 ? { status: 503 } : { status: 204 });

    const eventId = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => receiver.accepted().length === 1, { what: 'the successful attempt' });

    const attempts = receiver.attemptsOf(eventId);
    expect(attempts.map((webhook) => [webhook.headers['webhook-id'], webhook.body.id, webhook.verified])).toEqual(Array(4).fill([eventId, eventId, true]));
    // Each retry waited about the scheduled delay (300 ms ±10 %).
    for (let n = 1; n < attempts.length; n += 1) expect(attempts[n]!.receivedAt - attempts[n - 1]!.receivedAt).toBeGreaterThanOrEqual(RETRY_MS * 0.9 - 20);

    const [entry] = await waitFor(async () => {
      const log = await notifier.api.deliveries(party, subscription.id);
      return log[0]?.status === 'delivered' && log;
    });
    expect(entry).toMatchObject({ eventId, sequence: 1, type: 'AdmissionResponse', status: 'delivered', nextAttemptAt: null });
    expect(entry!.attempts.map(({ statusCode, error }) => ({ statusCode, error }))).toEqual([
      { statusCode: 503, error: 'the receiver answered HTTP 503' },
      { statusCode: 503, error: 'the receiver answered HTTP 503' },
      { statusCode: 503, error: 'the receiver answered HTTP 503' },
      { statusCode: 204, error: null },
    ]);
    expect(entry!.attempts.every((attempt) => attempt.durationMs >= 0 && Date.parse(attempt.attemptedAt) > 0)).toBe(true);

    const metrics = await (await fetch(`${notifier.internalUrl}/metrics`)).text();
    expect(metrics).toMatch(/webhook_deliveries_failed_total\{reason="status",service="notifier"\} [1-9]/);
    expect(metrics).toMatch(/webhook_deliveries_succeeded_total\{service="notifier"\} [1-9]/);
  });

  it('redelivers an event on request, even one already delivered, with the same id', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    const eventId = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => receiver.accepted().length === 1);

    const retry = await notifier.api.call(party, 'POST', `/${subscription.id}/deliveries/${eventId}/retry`);

    expect(retry.status).toBe(202);
    await waitFor(() => receiver.accepted().length === 2, { what: 'the redelivery' });
    expect(receiver.accepted().map((webhook) => webhook.id)).toEqual([eventId, eventId]);
    expect((await notifier.api.call(`someone-else`, 'POST', `/${subscription.id}/deliveries/${eventId}/retry`)).status).toBe(404);
    expect((await notifier.api.call(party, 'POST', `/${subscription.id}/deliveries/${randomUUID()}/retry`)).status).toBe(404);
  });

  it('sends no event of an erased request again: the erasure (told twice) gives up its pending one, a late one is not kept, a retry is refused', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    receiver.answer = () => ({ status: 503 });
    const identifier = requestIdentifier();
    const pending = await notifier.publish({ partyId: party, requestIdentifier: identifier, notes: ['Patientin bitte mit Röntgenbild'] });
    await waitFor(() => receiver.received.length >= 1, { what: 'the first attempt' });

    const erasedAt = new Date('2026-11-20T09:30:00.000Z');
    await notifier.publishErasure({ partyId: party, requestIdentifier: identifier, erasedAt }, 2);
    await waitFor(async () => (await notifier.api.deliveries(party, subscription.id))[0]?.status === 'withheld', { what: 'the erasure' });
    const late = await notifier.publish({ partyId: party, requestIdentifier: identifier });
    // Stored after the late one (one queue, in order): once it is there, the late one was handled.
    const later = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(async () => (await notifier.api.deliveries(party, subscription.id)).some((entry) => entry.eventId === later), { what: 'the later event' });

    expect((await notifier.api.deliveries(party, subscription.id)).map((entry) => [entry.eventId, entry.sequence, entry.status])).toEqual([
      [later, 2, 'pending'],
      [pending, 1, 'withheld'],
    ]);
    expect((await notifier.api.eventsSince(party, subscription.id, 0)).body.items.map((event) => [event.id, 'note' in (event.data as object)])).toEqual([
      [pending, false],
      [later, false],
    ]);
    expect(await notifier.api.call(party, 'POST', `/${subscription.id}/deliveries/${pending}/retry`)).toEqual({
      status: 409,
      body: { error: 'conflict', message: "the request's patient data was erased on 2026-11-20T09:30:00.000Z; its events are not sent any more" },
    });
    const attempts = receiver.attemptsOf(pending).length;
    await pastThisPoint();
    expect(receiver.attemptsOf(pending)).toHaveLength(attempts);
    expect(receiver.attemptsOf(late)).toEqual([]);
  });

  it('sends nothing more to a deleted subscription and discards its undelivered events', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    receiver.answer = () => ({ status: 500 });
    await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => receiver.received.length >= 1, { what: 'the first attempt' });

    expect((await notifier.api.call(party, 'DELETE', `/${subscription.id}`)).status).toBe(204);
    await pastThisPoint(); // an attempt already under way may still arrive; a retry due may not
    const seen = receiver.received.length;
    await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await pastThisPoint();

    expect(receiver.received).toHaveLength(seen);
    expect((await notifier.api.call(party, 'GET', `/${subscription.id}/deliveries`)).status).toBe(404);
  });

  it('sends the pending events to the new address after an address change, with their ids', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    receiver.answer = () => ({ status: 503 });
    const first = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    const second = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => receiver.received.length >= 2, { what: 'the failing attempts' });

    const newReceiver = new WebhookReceiver();
    newReceiver.secret = subscription.secret;
    const newUrl = await newReceiver.start();
    try {
      const changed = await notifier.api.call<{ id: string; callbackUrl: string; secret: string }>(party, 'PUT', `/${subscription.id}`, {
        callbackUrl: newUrl,
      });
      expect(changed).toMatchObject({ status: 200, body: { id: subscription.id, callbackUrl: newUrl, secret: subscription.secret } });

      await waitFor(() => newReceiver.accepted().length === 2, { what: 'the events at the new address' });
      expect(
        newReceiver
          .accepted()
          .map((webhook) => webhook.id)
          .sort(),
      ).toEqual([first, second].sort());
      expect(newReceiver.accepted().every((webhook) => webhook.verified)).toBe(true);
      // Both delivered: nothing is left to send anywhere. An attempt to the old address under way at
      // the change holds its delivery's lease until its answer is recorded, so every attempt of an
      // event to the old address came before its attempt to the new one.
      await waitFor(async () => (await notifier.api.deliveries(party, subscription.id)).every((entry) => entry.status === 'delivered'), {
        what: 'both recorded as delivered',
      });
      for (const event of [first, second]) {
        const delivered = newReceiver.attemptsOf(event)[0]!.receivedAt;
        expect(receiver.attemptsOf(event).filter((attempt) => attempt.receivedAt > delivered)).toEqual([]);
      }
    } finally {
      await newReceiver.stop();
    }
  });

  it('delivers the events of one request in order, holding a later one back while an earlier one is retried', async () => {
    const { party } = await subscribedParty(notifier.api, receiver);
    const slow = requestIdentifier();
    const other = requestIdentifier();
    const start = Date.now();
    receiver.answer = (webhook) =>
      requestOf(webhook.body) === slow && webhook.body.sequence === 1 && webhook.attempt <= 2 ? { status: 503 } : { status: 200 };

    const slow1 = await notifier.publish({ partyId: party, requestIdentifier: slow, occurredAt: new Date(start) });
    const slow2 = await notifier.publish({ partyId: party, requestIdentifier: slow, occurredAt: new Date(start + 1) });
    const other1 = await notifier.publish({ partyId: party, requestIdentifier: other, occurredAt: new Date(start + 2) });
    await waitFor(() => receiver.accepted().length === 3, { what: 'all three events' });

    const accepted = receiver.accepted().map((webhook) => webhook.id);
    // The other request did not wait for the slow one; the slow request's second event did.
    expect(accepted).toEqual([other1, slow1, slow2]);
    expect(receiver.attemptsOf(slow2)).toHaveLength(1);
    expect(receiver.attemptsOf(slow2)[0]!.receivedAt).toBeGreaterThanOrEqual(receiver.attemptsOf(slow1)[2]!.receivedAt);
  });

  it('disables the subscription on 410 Gone, keeps its events, and a PUT re-enables it', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    const identifier = requestIdentifier();
    receiver.answer = () => ({ status: 410 });
    const gone = await notifier.publish({ partyId: party, requestIdentifier: identifier });

    const disabled = await waitFor(async () => {
      const current = await notifier.api.get(party, subscription.id);
      return current.status === 'disabled' && current;
    });
    expect(disabled).toMatchObject({ id: subscription.id, status: 'disabled', disabledReason: 'the receiver answered 410 Gone' });
    const later = await notifier.publish({ partyId: party, requestIdentifier: identifier });
    await waitFor(async () => (await notifier.api.deliveries(party, subscription.id)).some((entry) => entry.eventId === later), {
      what: 'the later event stored',
    });
    await pastThisPoint();
    expect(receiver.received.map((webhook) => webhook.id)).toEqual([gone]);

    receiver.answer = () => ({ status: 204 });
    const enabled = await notifier.api.call(party, 'PUT', `/${subscription.id}`, { callbackUrl: receiver.url });
    expect(enabled).toMatchObject({ status: 200, body: { status: 'active', disabledReason: null, secret: subscription.secret } });
    await waitFor(() => receiver.accepted().length === 2, { what: 'the kept events' });
    expect(receiver.accepted().map((webhook) => [webhook.id, webhook.body.sequence])).toEqual([
      [gone, 1],
      [later, 2],
    ]);
  });

  it('waits as long as a 429 Retry-After asks before the next attempt', async () => {
    const { party } = await subscribedParty(notifier.api, receiver);
    receiver.answer = (webhook) => (webhook.attempt === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 });

    const eventId = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => receiver.accepted().length === 1, { what: 'the second attempt' });

    const [first, second] = receiver.attemptsOf(eventId);
    expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(1_000 - 20);
  });

  it('returns exactly the events after a sequence number for gap recovery, in the webhook body shape', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    const identifier = requestIdentifier();
    const ids: string[] = [];
    for (let n = 0; n < 5; n += 1) ids.push(await notifier.publish({ partyId: party, requestIdentifier: identifier }));
    await waitFor(() => receiver.accepted().length === 5, { what: 'five events' });
    const delivered = new Map(receiver.accepted().map((webhook) => [webhook.body.sequence, webhook.body]));

    const missed = await notifier.api.eventsSince(party, subscription.id, 2);

    expect(missed.status).toBe(200);
    expect(missed.body.items).toEqual([delivered.get(3), delivered.get(4), delivered.get(5)]);
    expect(missed.body.items.map((event) => event.id)).toEqual(ids.slice(2));
    expect((await notifier.api.eventsSince(party, subscription.id, 5)).body.items).toEqual([]);
    expect((await notifier.api.eventsSince(party, subscription.id, 0)).body.items.map((event) => event.sequence)).toEqual([1, 2, 3, 4, 5]);
    expect((await notifier.api.eventsSince(party, subscription.id, 'two')).status).toBe(400);
    expect((await notifier.api.eventsSince('someone-else', subscription.id, 0)).status).toBe(404);
  });
});

describe('a notifier whose subscription keeps failing', () => {
  // Long enough that the later event of pastThisPoint, refused three times on a subscription of its
  // own, is not disabled itself on a busy machine; retries enough to fail for that long.
  const notifier = notifierUnderTest({ WEBHOOK_RETRY_SCHEDULE: Array(60).fill('150ms').join(','), WEBHOOK_DISABLE_AFTER: '3s' });
  const pastThisPoint = pastThisPointOf(notifier);
  const receiver = new WebhookReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('is disabled once its deliveries have failed for WEBHOOK_DISABLE_AFTER in a row, and then sends no more', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    receiver.answer = () => ({ status: 500 });
    await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });

    const disabled = await waitFor(
      async () => {
        const current = await notifier.api.get(party, subscription.id);
        return current.status === 'disabled' && current;
      },
      { timeoutMs: 30_000, what: 'the subscription to be disabled' },
    );
    const seenDisabledAt = performance.now();
    expect(disabled.disabledReason).toBe('every delivery attempt has failed for 3 seconds');
    // Not before three seconds of failures: they began when the first attempt's answer was recorded, after
    // it arrived (a busy machine only makes the disabling later; the margin: the database keeps
    // milliseconds). It took a later failure to see that: at least two attempts.
    const attempts = receiver.received.length;
    expect(seenDisabledAt - receiver.received[0]!.receivedAt).toBeGreaterThanOrEqual(3_000 - 5);
    expect(attempts).toBeGreaterThanOrEqual(2);
    await pastThisPoint();
    expect(receiver.received.length).toBe(attempts);
  });
});

describe('a notifier with a small connection pool and batched recording (WEBHOOK_CONCURRENCY=4)', () => {
  const notifier = notifierUnderTest({ WEBHOOK_CONCURRENCY: '4', WEBHOOK_RETRY_SCHEDULE: Array(5).fill('100ms').join(',') });
  const receiver = new WebhookReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('delivers many events of several requests, each request in order, over no more connections than attempts in flight', async () => {
    const { party, subscription } = await subscribedParty(notifier.api, receiver);
    // Every fifth event fails once, so that retries and later events of its request meet in batches.
    receiver.answer = (webhook) =>
      webhook.body.sequence % 5 === 0 && webhook.attempt === 1 ? { status: 503 } : { status: 204, delayMs: webhook.body.sequence % 3 };
    const requests = Array.from({ length: 6 }, () => requestIdentifier());
    const happened = new Map<string, string[]>(requests.map((request) => [request, []]));
    const start = Date.now() - 10_000;

    for (let n = 0; n < 60; n += 1) {
      const request = requests[n % requests.length]!;
      happened.get(request)!.push(await notifier.publish({ partyId: party, requestIdentifier: request, occurredAt: new Date(start + n) }));
    }
    await waitFor(() => receiver.accepted().length >= 60, { timeoutMs: 20_000, what: 'every event delivered' });

    const accepted = receiver.accepted();
    expect(new Set(accepted.map((webhook) => webhook.id)).size).toBe(60);
    for (const request of requests) {
      expect(accepted.filter((webhook) => requestOf(webhook.body) === request).map((webhook) => webhook.id)).toEqual(happened.get(request));
    }
    expect(receiver.maxInFlightPerRequest).toBe(1);
    expect(receiver.received.every((webhook) => webhook.verified)).toBe(true);
    const log = await waitFor(async () => {
      const entries = await notifier.api.deliveries(party, subscription.id);
      return entries.length === 60 && entries.every((entry) => entry.status === 'delivered') && entries;
    });
    // Every event recorded as delivered: nothing more will be attempted. 72 requests (60 events, 12
    // of them twice) over at most 4 kept-alive connections.
    expect(receiver.received).toHaveLength(72);
    expect(receiver.connections).toBeLessThanOrEqual(4);
    expect(log.map((entry) => entry.sequence).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, n) => n + 1));
    expect(
      log.filter((entry) => entry.attempts.length === 2).every((entry) => entry.attempts[0]!.statusCode === 503 && entry.attempts[1]!.statusCode === 204),
    ).toBe(true);
    expect(log.filter((entry) => entry.attempts.length === 2)).toHaveLength(12);
  });
});

describe('a notifier in production mode (private callback addresses refused)', () => {
  // What hooks.example.org resolves to: a public address when the subscription is saved, then
  // re-pointed at the receiver on loopback (DNS rebinding).
  let address = '93.184.215.14';
  const notifier = notifierUnderTest(
    // The receiver is plain http: only the address guard is production's here.
    {
      NODE_ENV: 'production',
      DATA_KEK: randomBytes(32).toString('base64'),
      WEBHOOK_REQUIRE_HTTPS: 'false',
      WEBHOOK_RETRY_SCHEDULE: '',
    },
    { resolve: async () => [{ address, family: 4 }] },
  );
  const receiver = new WebhookReceiver();
  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('refuses the new connection to a name re-pointed at a loopback address after the subscription was saved', async () => {
    const { port } = new URL(receiver.url);
    const { party, subscription } = await subscribedParty(notifier.api, receiver, `http://hooks.example.org:${port}/webhooks`);
    address = '127.0.0.1';

    const eventId = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });

    const [entry] = await waitFor(async () => {
      const log = await notifier.api.deliveries(party, subscription.id);
      return log[0]?.status === 'failed' && log;
    });
    expect(entry).toMatchObject({ eventId, attempts: [{ statusCode: null, error: 'the callback address resolves to a loopback address' }] });
    expect(receiver.received).toEqual([]);
    expect(receiver.connections).toBe(0);
    const metrics = await (await fetch(`${notifier.internalUrl}/metrics`)).text();
    expect(metrics).toMatch(/webhook_deliveries_failed_total\{reason="refused",service="notifier"\} 1/);
  });
});
