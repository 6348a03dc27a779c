import { randomUUID } from 'node:crypto';
import { testEnvironment } from '@bedrequest/testing';
import { ADMISSION_RESPONSE_EVENT } from '../events/admission-response.consumer';
import type { IncomingEvent } from '../events/event.repository';
import { notifierTables } from '../persistence/database';
import { openNotifierStore, type NotifierStore } from '../testing/notifier-store';
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

  const event = (partyId: string, requestIdentifier: string): IncomingEvent => ({
    messageId: randomUUID(),
    messageType: 'admission.response.v1',
    eventId: randomUUID(),
    eventType: ADMISSION_RESPONSE_EVENT,
    partyId,
    requestIdentifier,
    occurredAt: new Date(),
    data: { resourceType: 'Task', id: randomUUID(), status: 'accepted', note: [{ text: 'Patientin bitte mit Röntgenbild' }] },
  });
  /** Each event's status, whether it is due, and its Task as the events feed would serve it. */
  const deliveries = async (eventIds: string[]) => {
    const { rows } = await store.pool.query<{ event_id: string; status: string; next_attempt_at: Date | null; sealed_data: Buffer | null; data: unknown }>(
      `SELECT event_id::text, status, next_attempt_at, sealed_data, data FROM "${store.schema}".delivery WHERE event_id = ANY($1::uuid[])`,
      [eventIds],
    );
    const byId = new Map(rows.map((row) => [row.event_id, row]));
    return Promise.all(
      eventIds.map(async (id) => {
        const row = byId.get(id)!;
        const task = (await store.fields.openData(id, { sealed: row.sealed_data, clear: row.data })) as { note?: unknown };
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
    await store.pool.query(`UPDATE "${store.schema}".delivery SET status = 'delivered', next_attempt_at = NULL, delivered_at = now() WHERE event_id = $1`, [delivered.eventId]);

    expect(await erasure.erase({ requestIdentifier: request, referrerPartyId: partyId })).toEqual({ discarded: 1, erased: 2 });

    expect(await deliveries([delivered.eventId, pending.eventId, otherRequest.eventId, othersParty.eventId])).toEqual([
      { status: 'delivered', due: false, notes: false },
      { status: 'failed', due: false, notes: false },
      { status: 'pending', due: true, notes: true },
      { status: 'pending', due: true, notes: true },
    ]);
    // Told again (a redelivery): nothing more to discard.
    expect(await erasure.erase({ requestIdentifier: request, referrerPartyId: partyId })).toEqual({ discarded: 0, erased: 2 });
  });
});
