import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { testEnvironment } from '@bedrequest/testing';
import { incomingEvent, openNotifierStore, type NotifierStore } from '../testing/notifier-store';
import type { EventRepository, IncomingEvent } from './event.repository';

const env = testEnvironment();

describe('EventRepository.recordAll against the real PostgreSQL', () => {
  let store: NotifierStore;
  let events: EventRepository;
  let pool: Pool;
  let schema: string;

  beforeAll(async () => {
    store = await openNotifierStore(env.databaseUrl);
    ({ events, pool, schema } = store);
  });

  afterAll(() => store.close());

  const subscribedParty = () => store.subscribedParty();

  const event = (partyId: string, requestIdentifier = 'request-1', overrides: Partial<IncomingEvent> = {}): IncomingEvent =>
    incomingEvent(partyId, requestIdentifier, {
      occurredAt: new Date('2025-03-06T12:00:00.123Z'),
      data: { resourceType: 'Task', note: [{ text: 'patient details' }] },
      ...overrides,
    });

  const stored = async (subscriptionId: string) =>
    (
      await pool.query<{ event_id: string; sequence: number; status: string; sealed_data: Buffer; due: boolean }>(
        `SELECT event_id, sequence, status, sealed_data, next_attempt_at <= now() + interval '1 second' AS due FROM "${schema}".delivery WHERE subscription_id = $1 ORDER BY sequence`,
        [subscriptionId],
      )
    ).rows;
  /** The outcomes of storing `batch` without a hand-off, as the sequence-number tests read them. */
  const record = async (batch: IncomingEvent[]) =>
    (await events.recordAll(batch)).outcomes.map((outcome) =>
      outcome.kind === 'stored' ? { kind: outcome.kind, subscriptionId: outcome.subscriptionId, sequence: outcome.sequence } : outcome,
    );
  const lastSequence = async (subscriptionId: string) =>
    (await pool.query<{ last_sequence: number }>(`SELECT last_sequence FROM "${schema}".subscription WHERE id = $1`, [subscriptionId])).rows[0]!.last_sequence;

  it('gives the events of one subscription consecutive sequence numbers in the order of the batch, as pending deliveries due now', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const batch = [event(partyId, 'a'), event(partyId, 'b'), event(partyId, 'a'), event(partyId, 'c'), event(partyId, 'b')];

    const outcomes = await record(batch);

    expect(outcomes).toEqual([1, 2, 3, 4, 5].map((sequence) => ({ kind: 'stored', subscriptionId, sequence })));
    const rows = await stored(subscriptionId);
    expect(rows.map((row) => [row.event_id, row.sequence, row.status, row.due])).toEqual(
      batch.map((sent, index) => [sent.eventId, index + 1, 'pending', true]),
    );
    expect(await store.fields.openData(rows[0]!.event_id, { sealed: rows[0]!.sealed_data, clear: null })).toEqual(batch[0]!.data);
    expect(await lastSequence(subscriptionId)).toBe(5);
  });

  it('stores each Task sealed for its own row: nothing of it in clear, and not readable as another event', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const [first, second] = [event(partyId), event(partyId)];
    await events.recordAll([first!, second!]);

    const rows = await stored(subscriptionId);
    expect(rows[0]!.sealed_data.includes(Buffer.from('patient details'))).toBe(false);
    expect(await store.fields.openData(first!.eventId, { sealed: rows[0]!.sealed_data, clear: null })).toEqual(first!.data);
    await expect(store.fields.openData(second!.eventId, { sealed: rows[0]!.sealed_data, clear: null })).rejects.toThrow(/does not authenticate/);
  });

  it('changes nothing when the same batch is delivered again, and numbers the next batch on from there', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const batch = [event(partyId), event(partyId), event(partyId)];
    await events.recordAll(batch);

    const again = await record(batch);
    // The same events under new message ids (a publisher that sent them twice) are duplicates too.
    const republished = await record(batch.map((sent) => ({ ...sent, messageId: randomUUID() })));
    const next = await record([event(partyId)]);

    expect(again).toEqual([{ kind: 'duplicate' }, { kind: 'duplicate' }, { kind: 'duplicate' }]);
    expect(republished).toEqual([{ kind: 'duplicate' }, { kind: 'duplicate' }, { kind: 'duplicate' }]);
    expect(next).toEqual([{ kind: 'stored', subscriptionId, sequence: 4 }]);
    expect((await stored(subscriptionId)).map((row) => row.sequence)).toEqual([1, 2, 3, 4]);
    expect(await lastSequence(subscriptionId)).toBe(4);
  });

  it('stores a message or an event that occurs twice within one batch once', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const first = event(partyId);
    const sameEventOtherMessage = { ...first, messageId: randomUUID() };
    const later = event(partyId);

    const outcomes = await record([first, first, sameEventOtherMessage, later]);

    expect(outcomes).toEqual([
      { kind: 'stored', subscriptionId, sequence: 1 },
      { kind: 'duplicate' },
      { kind: 'duplicate' },
      { kind: 'stored', subscriptionId, sequence: 2 },
    ]);
    expect((await stored(subscriptionId)).map((row) => row.event_id)).toEqual([first.eventId, later.eventId]);
  });

  it('numbers each subscription of a mixed batch on its own and drops events of parties without a subscription', async () => {
    const one = await subscribedParty();
    const two = await subscribedParty();
    const stranger = `stranger-${randomUUID()}`;

    const dropped = event(stranger);

    const outcomes = await record([event(one.partyId), dropped, event(two.partyId), event(one.partyId), event(two.partyId)]);

    expect(outcomes).toEqual([
      { kind: 'stored', subscriptionId: one.subscriptionId, sequence: 1 },
      { kind: 'no-subscription' },
      { kind: 'stored', subscriptionId: two.subscriptionId, sequence: 1 },
      { kind: 'stored', subscriptionId: one.subscriptionId, sequence: 2 },
      { kind: 'stored', subscriptionId: two.subscriptionId, sequence: 2 },
    ]);
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".delivery WHERE event_id = $1`, [dropped.eventId]);
    expect(rows[0].n).toBe(0);
    // Its message is recorded all the same: a redelivery is only acknowledged.
    expect(await record([dropped])).toEqual([{ kind: 'duplicate' }]);
  });

  it('keeps sequence numbers unique and gap-free when batches for the same subscriptions are stored concurrently', async () => {
    const one = await subscribedParty();
    const two = await subscribedParty();
    // Batches that name both subscriptions in opposite orders: they lock the rows in id order, so
    // they wait for each other instead of deadlocking.
    const batches = Array.from({ length: 8 }, (_, n) =>
      Array.from({ length: 10 }, (_, k) => event((n + k) % 2 === 0 ? one.partyId : two.partyId, `request-${k % 3}`)),
    );

    await Promise.all(batches.map((batch) => events.recordAll(batch)));

    for (const { subscriptionId } of [one, two]) {
      expect((await stored(subscriptionId)).map((row) => row.sequence)).toEqual(Array.from({ length: 40 }, (_, n) => n + 1));
      expect(await lastSequence(subscriptionId)).toBe(40);
    }
    // Within each batch, the events of one subscription got increasing numbers in batch order.
    const sequenceOf = new Map(
      (await pool.query<{ event_id: string; sequence: number }>(`SELECT event_id, sequence FROM "${schema}".delivery`)).rows.map((row) => [
        row.event_id,
        row.sequence,
      ]),
    );
    for (const batch of batches) {
      for (const partyId of [one.partyId, two.partyId]) {
        const numbers = batch.filter((sent) => sent.partyId === partyId).map((sent) => sequenceOf.get(sent.eventId)!);
        expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
        expect(numbers[numbers.length - 1]! - numbers[0]!).toBe(numbers.length - 1);
      }
    }
  });

  it('hands the first pending event of each request over, claimed, up to the limit, and leaves later ones of a request behind', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    await events.recordAll([event(partyId, 'pending-before')]);
    const batch = [event(partyId, 'a'), event(partyId, 'a'), event(partyId, 'pending-before'), event(partyId, 'b'), event(partyId, 'c')];

    const { outcomes, claimed } = await events.recordAll(batch, { limit: 2, leaseMs: 15_000 });

    expect(outcomes.map((outcome) => (outcome.kind === 'stored' ? [outcome.handedOver, outcome.waitsForEarlier] : outcome.kind))).toEqual([
      [true, false],
      [false, true],
      [false, true],
      [true, false],
      [false, false],
    ]);
    expect(
      claimed.map((delivery) => [delivery.eventId, delivery.requestIdentifier, delivery.callbackUrl, delivery.attemptCount, delivery.secret, delivery.data]),
    ).toEqual([
      [batch[0]!.eventId, 'a', 'http://127.0.0.1:9/hook', 0, 'whsec_c2VjcmV0', batch[0]!.data],
      [batch[3]!.eventId, 'b', 'http://127.0.0.1:9/hook', 0, 'whsec_c2VjcmV0', batch[3]!.data],
    ]);
    const leases = await pool.query<{ event_id: string; leased: boolean; token: string | null }>(
      `SELECT event_id, leased_until > now() AS leased, lease_token::text AS token FROM "${schema}".delivery WHERE subscription_id = $1 AND leased_until IS NOT NULL`,
      [subscriptionId],
    );
    expect(leases.rows.map((row) => [row.event_id, row.leased, row.token])).toEqual(
      expect.arrayContaining(claimed.map((delivery) => [delivery.eventId, true, delivery.leaseToken])),
    );
    expect(leases.rows).toHaveLength(2);
  });

  it("hands a request's events over in the order they happened, as the worker's claim takes them, not in the order they arrived", async () => {
    const { partyId } = await subscribedParty();
    const at = (ms: number) => ({ occurredAt: new Date(Date.parse('2025-03-06T12:00:00.000Z') + ms) });
    await events.recordAll([event(partyId, 'stored-later', at(50))]);
    // One that happened before the stored one goes out at once; within the batch the earlier event is first.
    const batch = [event(partyId, 'stored-later', at(10)), event(partyId, 'a', at(30)), event(partyId, 'a', at(20))];

    const { outcomes, claimed } = await events.recordAll(batch, { limit: 5, leaseMs: 15_000 });

    expect(outcomes.map((outcome) => (outcome.kind === 'stored' ? [outcome.handedOver, outcome.waitsForEarlier] : outcome.kind))).toEqual([
      [true, false],
      [false, true],
      [true, false],
    ]);
    expect(claimed.map((delivery) => delivery.eventId).sort()).toEqual([batch[0]!.eventId, batch[2]!.eventId].sort());
  });

  it('hands nothing over for a disabled subscription', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    await pool.query(`UPDATE "${schema}".subscription SET status = 'disabled' WHERE id = $1`, [subscriptionId]);
    const { outcomes, claimed } = await events.recordAll([event(partyId, 'x')], { limit: 5, leaseMs: 15_000 });
    expect(claimed).toEqual([]);
    expect(outcomes).toEqual([expect.objectContaining({ kind: 'stored', handedOver: false })]);
  });
});
