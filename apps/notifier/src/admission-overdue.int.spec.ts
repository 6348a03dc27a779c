import { randomUUID } from 'node:crypto';
import { WebhookReceiver, waitFor, type ReceivedWebhook } from '@bedrequest/testing';
import { requestIdentifier } from './testing/notifier-test-kit';
import { notifierUnderTest } from './testing/notifier-under-test';

// Short retry delays so that a failing receiver is retried within the test.
const RETRY_MS = 300;

/**
 * The AdmissionOverdue event (docs/webhooks.md): intake's admission.overdue.v1, published to the
 * notifier's queue on the real broker, delivered to the party's AdmissionOverdue subscription with
 * sequence numbers of its own, apart from its AdmissionResponse subscription.
 */
describe('AdmissionOverdue webhooks with the real RabbitMQ, PostgreSQL and local receivers', () => {
  const notifier = notifierUnderTest({ WEBHOOK_RETRY_SCHEDULE: Array(6).fill(`${RETRY_MS}ms`).join(',') });
  // Each test's own receivers: one per subscription of the party, each verifying with its secret.
  let answers: WebhookReceiver;
  let overdue: WebhookReceiver;
  const url = { answers: '', overdue: '' };
  beforeEach(async () => {
    answers = new WebhookReceiver();
    overdue = new WebhookReceiver();
    [url.answers, url.overdue] = await Promise.all([answers.start(), overdue.start()]);
  });
  afterEach(() => Promise.all([answers.stop(), overdue.stop()]));

  /** A new party with both subscriptions, each to its receiver. */
  async function partyWithBothSubscriptions() {
    const party = `referrer-${randomUUID()}`;
    const responses = await notifier.api.subscribe(party, url.answers, 'AdmissionResponse');
    const overdues = await notifier.api.subscribe(party, url.overdue, 'AdmissionOverdue');
    answers.secret = responses.secret;
    overdue.secret = overdues.secret;
    return { party, responses, overdues };
  }

  it('has a subscription of its own per party: created 201, a second POST re-addresses it (200, same id and secret), deleted alone', async () => {
    const party = `referrer-${randomUUID()}`;
    const responses = await notifier.api.call<{ id: string; secret: string }>(party, 'POST', '', { eventType: 'AdmissionResponse', callbackUrl: url.answers });
    const created = await notifier.api.call<{ id: string; secret: string }>(party, 'POST', '', { eventType: 'AdmissionOverdue', callbackUrl: url.overdue });
    const moved = await notifier.api.call<{ id: string; secret: string }>(party, 'POST', '', {
      eventType: 'AdmissionOverdue',
      callbackUrl: `${url.overdue}/moved`,
    });

    expect(created).toMatchObject({ status: 201, body: { eventType: 'AdmissionOverdue', callbackUrl: url.overdue, status: 'active', disabledReason: null } });
    expect(created.body.id).not.toBe(responses.body.id);
    expect(created.body.secret).toMatch(/^whsec_/);
    expect(created.body.secret).not.toBe(responses.body.secret);
    expect(moved).toEqual({ status: 200, body: { ...created.body, callbackUrl: `${url.overdue}/moved` } });
    const listed = await notifier.api.call<{ items: { id: string; eventType: string }[] }>(party, 'GET', '');
    expect(listed.body.items.map(({ id, eventType }) => [eventType, id]).sort()).toEqual(
      [
        ['AdmissionOverdue', created.body.id],
        ['AdmissionResponse', responses.body.id],
      ].sort(),
    );

    expect((await notifier.api.call(party, 'DELETE', `/${created.body.id}`)).status).toBe(204);
    expect((await notifier.api.call(party, 'GET', `/${responses.body.id}`)).status).toBe(200);
    expect((await notifier.api.call(party, 'GET', `/${created.body.id}`)).status).toBe(404);
  });

  it("delivers overdue events signed to the AdmissionOverdue subscription, numbered 1, 2 apart from the answers' sequence", async () => {
    const { party, responses, overdues } = await partyWithBothSubscriptions();
    const [first, second] = [requestIdentifier(), requestIdentifier()];
    const deadline = new Date('2026-12-07T10:00:00.000Z');
    const markedAt = new Date('2026-12-07T10:00:05.000Z');

    const answer1 = await notifier.publish({ partyId: party, requestIdentifier: first });
    const overdue1 = await notifier.publishOverdue({ partyId: party, requestIdentifier: first, deadline, occurredAt: markedAt });
    const overdue2 = await notifier.publishOverdue({ partyId: party, requestIdentifier: second, deadline, occurredAt: markedAt });
    const answer2 = await notifier.publish({ partyId: party, requestIdentifier: second });
    await waitFor(() => overdue.accepted().length === 2 && answers.accepted().length === 2, { what: 'two webhooks at each receiver' });

    const bySequence = (webhooks: ReceivedWebhook[]) => [...webhooks].sort((a, b) => Number(a.body.sequence) - Number(b.body.sequence));
    const [o1, o2] = bySequence(overdue.accepted());
    expect([o1, o2].map((webhook) => [webhook!.id, webhook!.body.type, webhook!.body.sequence, webhook!.verified])).toEqual([
      [overdue1, 'AdmissionOverdue', 1, true],
      [overdue2, 'AdmissionOverdue', 2, true],
    ]);
    expect(o1!.body).toEqual({
      id: overdue1,
      type: 'AdmissionOverdue',
      timestamp: markedAt.toISOString(),
      sequence: 1,
      data: expect.objectContaining({
        resourceType: 'Task',
        restriction: { period: { end: deadline.toISOString() } },
        basedOn: [{ identifier: { system: 'urn:ietf:rfc:3986', value: first } }],
      }),
    });
    // `verified`: signed with the AdmissionOverdue subscription's own secret (the receiver holds it), which is not the other one's.
    expect(o1!.headers['webhook-id']).toBe(overdue1);
    expect(overdues.secret).not.toBe(responses.secret);

    // The AdmissionResponse subscription got its own two, numbered as if there were no overdue events.
    expect(bySequence(answers.accepted()).map((webhook) => [webhook.id, webhook.body.type, webhook.body.sequence, webhook.verified])).toEqual([
      [answer1, 'AdmissionResponse', 1, true],
      [answer2, 'AdmissionResponse', 2, true],
    ]);
    expect(answers.received.map((webhook) => webhook.id)).not.toContain(overdue1);

    // The delivery log names the type.
    const log = await waitFor(async () => {
      const entries = await notifier.api.deliveries(party, overdues.id);
      return entries.every((entry) => entry.status === 'delivered') && entries;
    });
    expect(log.map((entry) => [entry.eventId, entry.sequence, entry.type])).toEqual([
      [overdue2, 2, 'AdmissionOverdue'],
      [overdue1, 1, 'AdmissionOverdue'],
    ]);
  });

  it('replays the AdmissionOverdue subscription’s events after a sequence number, as their webhook bodies', async () => {
    const { party, responses, overdues } = await partyWithBothSubscriptions();
    const deadline = new Date('2026-12-07T11:00:00.000Z');
    const ids = [];
    for (let n = 0; n < 3; n += 1) ids.push(await notifier.publishOverdue({ partyId: party, requestIdentifier: requestIdentifier(), deadline }));
    await waitFor(() => overdue.accepted().length === 3, { what: 'the three webhooks' });

    const replay = await notifier.api.eventsSince(party, overdues.id, 1);
    expect(replay.status).toBe(200);
    expect(replay.body.items.map((event) => [event.id, event.type, event.sequence])).toEqual([
      [ids[1], 'AdmissionOverdue', 2],
      [ids[2], 'AdmissionOverdue', 3],
    ]);
    // Exactly the bodies that were sent.
    const sent = new Map(overdue.accepted().map((webhook) => [webhook.id, webhook.body]));
    for (const event of replay.body.items) expect(event).toEqual(sent.get(event.id));
    // The AdmissionResponse subscription has none of them.
    expect((await notifier.api.eventsSince(party, responses.id, 0)).body.items).toEqual([]);
  });

  it('keeps nothing for a party without an AdmissionOverdue subscription, and sends none to its AdmissionResponse one', async () => {
    const party = `referrer-${randomUUID()}`;
    const responses = await notifier.api.subscribe(party, url.answers, 'AdmissionResponse');
    answers.secret = responses.secret;
    const dropped = await notifier.publishOverdue({ partyId: party, requestIdentifier: requestIdentifier(), deadline: new Date() });
    // One queue, in order: once this answer is delivered, the overdue event before it was handled.
    const answer = await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => answers.accepted().length === 1, { what: 'the answer' });

    expect(answers.received.map((webhook) => [webhook.id, webhook.body.sequence])).toEqual([[answer, 1]]);
    expect((await notifier.api.deliveries(party, responses.id)).map((entry) => entry.eventId)).toEqual([answer]);
    // Subscribing afterwards brings nothing of it: it was not kept to be numbered later.
    const overdues = await notifier.api.subscribe(party, url.overdue, 'AdmissionOverdue');
    overdue.secret = overdues.secret;
    expect((await notifier.api.eventsSince(party, overdues.id, 0)).body.items).toEqual([]);
    expect(await notifier.api.deliveries(party, overdues.id)).toEqual([]);
    // The next one is its first.
    const next = await notifier.publishOverdue({ partyId: party, requestIdentifier: requestIdentifier(), deadline: new Date() });
    await waitFor(() => overdue.accepted().length === 1, { what: 'the next overdue event' });
    expect(overdue.received.map((webhook) => [webhook.id, webhook.body.sequence])).toEqual([[next, 1]]);
    expect(overdue.received.map((webhook) => webhook.id)).not.toContain(dropped);
  });

  it("drops a pending overdue event and its Task's notes when the request is erased, and keeps none that comes later", async () => {
    const { party, overdues } = await partyWithBothSubscriptions();
    overdue.answer = () => ({ status: 503 });
    const identifier = requestIdentifier();
    const pending = await notifier.publishOverdue({ partyId: party, requestIdentifier: identifier, deadline: new Date(), notes: ['Rückruf erbeten'] });
    await waitFor(() => overdue.received.length >= 1, { what: 'the first attempt' });

    await notifier.publishErasure({ partyId: party, requestIdentifier: identifier, erasedAt: new Date('2026-12-07T12:00:00.000Z') });
    await waitFor(async () => (await notifier.api.deliveries(party, overdues.id))[0]?.status === 'withheld', { what: 'the erasure' });
    const late = await notifier.publishOverdue({ partyId: party, requestIdentifier: identifier, deadline: new Date() });
    // Stored after the late one (one queue, in order): once it is there, the late one was handled.
    const later = await notifier.publishOverdue({ partyId: party, requestIdentifier: requestIdentifier(), deadline: new Date() });
    await waitFor(async () => (await notifier.api.deliveries(party, overdues.id)).some((entry) => entry.eventId === later), { what: 'the later event' });

    expect((await notifier.api.deliveries(party, overdues.id)).map((entry) => [entry.eventId, entry.sequence, entry.status])).toEqual([
      [later, 2, 'pending'],
      [pending, 1, 'withheld'],
    ]);
    const kept = (await notifier.api.eventsSince(party, overdues.id, 0)).body.items;
    expect(kept.map((event) => [event.id, 'note' in (event.data as object)])).toEqual([
      [pending, false],
      [later, false],
    ]);
    expect((await notifier.api.call(party, 'POST', `/${overdues.id}/deliveries/${pending}/retry`)).status).toBe(409);
    // The pending one is not tried again: the later event's attempts go on, its own stopped.
    const attempts = overdue.attemptsOf(pending).length;
    await waitFor(() => overdue.attemptsOf(later).length >= 3, { timeoutMs: 30_000, what: 'three attempts of the later event' });
    expect(overdue.attemptsOf(pending)).toHaveLength(attempts);
    expect(overdue.attemptsOf(late)).toEqual([]);
  });
});
