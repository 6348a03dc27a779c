import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { testEnvironment, waitFor } from '@bedrequest/testing';
import type { IncomingEvent } from '../events/event.repository';
import { notifierTables } from '../persistence/database';
import { incomingEvent, openNotifierStore, type NotifierStore } from '../testing/notifier-store';
import { RequestErasureRepository } from './request-erasure.repository';

const env = testEnvironment();

describe("the notifier's share of an erasure, against the real PostgreSQL", () => {
  let store: NotifierStore;
  let erasure: RequestErasureRepository;

  beforeAll(async () => {
    store = await openNotifierStore(env.databaseUrl);
    erasure = new RequestErasureRepository(store.prisma, notifierTables(store.schema), store.fields);
  });
  afterAll(() => store.close());

  const event = (partyId: string, requestIdentifier: string): IncomingEvent =>
    incomingEvent(partyId, requestIdentifier, {
      data: { resourceType: 'Task', id: randomUUID(), status: 'accepted', note: [{ text: 'Patientin bitte mit Röntgenbild' }] },
    });
  const ERASED_AT = new Date('2026-11-20T09:30:00.000Z');
  const marks = async (requestIdentifier: string) =>
    (
      await store.pool.query<{ party_id: string; erased_at: Date }>(
        `SELECT party_id, erased_at FROM "${store.schema}".request_erasure WHERE request_identifier = $1`,
        [requestIdentifier],
      )
    ).rows;
  const storedEvents = async (eventIds: string[]) =>
    (
      await store.pool.query<{ event_id: string }>(`SELECT event_id::text FROM "${store.schema}".delivery WHERE event_id = ANY($1::uuid[])`, [eventIds])
    ).rows.map((row) => row.event_id);
  /** Statements of this test's schema waiting for a lock. */
  const waiting = async () =>
    (
      await store.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND position($1 in query) > 0`, [
        `"${store.schema}"`,
      ])
    ).rows[0]!.n;
  /** Each event's status, whether it is due, and its Task as the events feed would serve it. */
  const deliveries = async (eventIds: string[]) => {
    const { rows } = await store.pool.query<{ event_id: string; status: string; next_attempt_at: Date | null; sealed_data: Buffer }>(
      `SELECT event_id::text, status, next_attempt_at, sealed_data FROM "${store.schema}".delivery WHERE event_id = ANY($1::uuid[])`,
      [eventIds],
    );
    const byId = new Map(rows.map((row) => [row.event_id, row]));
    return Promise.all(
      eventIds.map(async (id) => {
        const row = byId.get(id)!;
        const task = (await store.fields.openData(id, { sealed: row.sealed_data, clear: null })) as { note?: unknown };
        return { status: row.status, due: row.next_attempt_at !== null, notes: task.note !== undefined };
      }),
    );
  };

  it("discards the request's pending events and drops the notes of all its events, of the referrer's subscriptions only", async () => {
    const { partyId } = await store.subscribedParty();
    const other = await store.subscribedParty();
    const request = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    const delivered = event(partyId, request);
    const pending = event(partyId, request);
    const otherRequest = event(partyId, `${request}-other`);
    const othersParty = event(other.partyId, request);
    await store.events.recordAll([delivered, pending, otherRequest, othersParty]);
    await store.pool.query(`UPDATE "${store.schema}".delivery SET status = 'delivered', next_attempt_at = NULL, delivered_at = now() WHERE event_id = $1`, [
      delivered.eventId,
    ]);

    expect(await erasure.erase({ requestIdentifier: request, referrerPartyId: partyId, erasedAt: ERASED_AT })).toEqual({ discarded: 1, erased: 2 });

    expect(await deliveries([delivered.eventId, pending.eventId, otherRequest.eventId, othersParty.eventId])).toEqual([
      { status: 'delivered', due: false, notes: false },
      { status: 'withheld', due: false, notes: false },
      { status: 'pending', due: true, notes: true },
      { status: 'pending', due: true, notes: true },
    ]);
    expect(await marks(request)).toEqual([{ party_id: partyId, erased_at: ERASED_AT }]);
    // Told again (a redelivery): nothing more to discard, and the first erasure's time is kept.
    expect(await erasure.erase({ requestIdentifier: request, referrerPartyId: partyId, erasedAt: new Date() })).toEqual({ discarded: 0, erased: 2 });
    expect(await marks(request)).toEqual([{ party_id: partyId, erased_at: ERASED_AT }]);
    expect((await deliveries([pending.eventId]))[0]).toEqual({ status: 'withheld', due: false, notes: false });
  });

  it("keeps no event of the request that arrives after the erasure (redelivered or late), and numbers the subscription's next event on without a gap", async () => {
    const { partyId, subscriptionId } = await store.subscribedParty();
    const request = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    await store.events.recordAll([event(partyId, request)]);
    await erasure.erase({ requestIdentifier: request, referrerPartyId: partyId, erasedAt: ERASED_AT });

    const late = event(partyId, request);
    const ofAnotherRequest = event(partyId, `${request}-other`);
    const recorded = await store.events.recordAll([late, ofAnotherRequest], { limit: 5, leaseMs: 15_000 });

    expect(recorded.outcomes).toEqual([{ kind: 'erased' }, expect.objectContaining({ kind: 'stored', subscriptionId, sequence: 2, handedOver: true })]);
    expect(recorded.claimed.map((claimed) => claimed.eventId)).toEqual([ofAnotherRequest.eventId]);
    expect(await storedEvents([late.eventId, ofAnotherRequest.eventId])).toEqual([ofAnotherRequest.eventId]);
    // Its message is recorded: delivered once more, it is only acknowledged.
    expect((await store.events.recordAll([late])).outcomes).toEqual([{ kind: 'duplicate' }]);
  });

  it('keeps no event stored by a batch that began before the erasure committed and waited for its lock', async () => {
    const { partyId } = await store.subscribedParty();
    const request = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    const earlier = event(partyId, request);
    await store.events.recordAll([earlier]);
    // A worker holds the request's earlier event: the erasure, having locked the subscription and
    // written its mark, waits for it; meanwhile a batch with a late event of the request begins
    // (its snapshot without the mark) and waits for the subscription.
    const worker = new Client({ connectionString: env.databaseUrl });
    await worker.connect();
    try {
      await worker.query('BEGIN');
      await worker.query(`SELECT 1 FROM "${store.schema}".delivery WHERE event_id = $1 FOR UPDATE`, [earlier.eventId]);
      const erased = erasure.erase({ requestIdentifier: request, referrerPartyId: partyId, erasedAt: ERASED_AT });
      await waitFor(async () => (await waiting()) === 1, { what: 'the erasure to wait for the worker' });
      const late = event(partyId, request);
      const recorded = store.events.recordAll([late], { limit: 5, leaseMs: 15_000 });
      await waitFor(async () => (await waiting()) === 2, { what: 'the batch to wait for the erasure' });
      await worker.query('COMMIT');

      expect(await erased).toEqual({ discarded: 1, erased: 1 });
      expect((await recorded).outcomes).toEqual([{ kind: 'erased' }]);
      expect(await storedEvents([late.eventId])).toEqual([]);
    } finally {
      await worker.end();
    }
  });
});
