import type { PayloadForm } from '@bedrequest/contracts';
import type { TraceContext } from '@bedrequest/messaging';
import { claimTurn, inFlight, mayBeClaimed, newLease, originOf, previousSecretOf, UNCAPPED, withinCaps, type InFlightCaps } from '../delivery/claim-rule';
import { openClaims, type ClaimResult, type SealedClaim } from '../delivery/claimed-delivery';
import { Prisma } from '../generated/prisma/client';
import type { NotifierDatabase, NotifierTables } from '../persistence/database';
import type { ProtectedFields } from '../persistence/sealed-fields';

/** An event as the notifier receives it from the broker. */
export interface IncomingEvent {
  messageId: string;
  messageType: string;
  eventId: string;
  eventType: string;
  partyId: string;
  requestIdentifier: string;
  occurredAt: Date;
  data: unknown;
  /** The trace context of the message that brought it: each webhook attempt is a span in that trace. */
  traceContext?: TraceContext;
}

/** How many of the stored events the worker can take at once, and for how long it holds them. */
export interface HandOff {
  limit: number;
  leaseMs: number;
  /** The caps in flight the claim rule keeps (claim-rule.ts); none: uncapped. */
  caps?: InFlightCaps;
}

export type RecordOutcome =
  /**
   * `handedOver`: claimed for the worker by the same statement; `waitsForEarlier`: the claim rule
   * keeps it back (an earlier event of its request is pending, or its subscription is disabled).
   */
  | { kind: 'stored'; subscriptionId: string; sequence: number; handedOver: boolean; waitsForEarlier: boolean }
  /** The message (or the event, under another message id, also earlier in the same batch) was recorded before. */
  | { kind: 'duplicate' }
  | { kind: 'no-subscription' }
  /**
   * Not stored: the referrer's request was erased before (a redelivered or late message). Nothing
   * rather than a discarded copy without notes: nothing of an erased request is to be sent again,
   * the referrer reads the Task's states from its tombstone, and the subscription's sequence
   * numbers stay gap-free without it.
   */
  | { kind: 'erased' };

/**
 * Stores incoming events with their pending deliveries. SQL rather than Prisma's API where the
 * database clock matters (`next_attempt_at = now()`: every notifier process compares due times with
 * the same clock) and to do a whole batch in one statement.
 */
export class EventRepository {
  constructor(
    private readonly prisma: NotifierDatabase,
    private readonly tables: NotifierTables,
    private readonly fields: ProtectedFields,
  ) {}

  /**
   * Stores a batch of events in ONE statement (atomic on its own: all or nothing), in the batch's
   * order: records every message id in the inbox; skips messages seen before and events already
   * stored (also a second message of one event within the batch); takes the sequence numbers of
   * each subscription with one `last_sequence + <its count>` and numbers its events in batch order;
   * stores the pending deliveries, due now. Returns one outcome per event, in order. An event of a
   * request its referrer had erased (`request_erasure`) is recorded in the inbox only.
   *
   * Sequence numbers stay unique and gap-free across notifier processes: the subscription's row lock
   * serialises concurrent batches until commit, and a failed statement takes its numbers back. The
   * rows are locked in id order, so two batches naming the same subscriptions cannot deadlock. An
   * event stored concurrently by another process under another message id makes the delivery
   * INSERT fail on its key (rather than skip it, which would leave a gap): the batch is then split
   * by the consumer and that event found stored on its own.
   *
   * The same statement hands up to `handOff.limit` of the stored events straight to the worker,
   * claimed under the claim rule the worker's own claims use (claim-rule.ts), applied to the
   * pending deliveries stored before and to those of the batch: an event whose request has an
   * earlier one pending waits, as does one of a disabled subscription. A webhook that can go out at
   * once thus costs no claim statement of its own; the others wait for the worker's claim. Each
   * Task is stored sealed (SealedFields); the hand-off takes it from `events`, and opens only the
   * subscription's secret. A handed-over event whose secret cannot be opened is `unreadable`: it
   * stays claimed until its lease runs out.
   */
  async recordAll(events: readonly IncomingEvent[], handOff: HandOff = { limit: 0, leaseMs: 0 }): Promise<{ outcomes: RecordOutcome[] } & ClaimResult> {
    if (events.length === 0) return { outcomes: [], claimed: [], unreadable: [] };
    const t = this.tables;
    const column = <T>(value: (event: IncomingEvent) => T) => events.map(value);
    const lease = newLease(handOff.leaseMs);
    const caps = handOff.caps ?? UNCAPPED;
    const [, rows] = await this.prisma.$transaction([
      this.prisma.$executeRaw(claimTurn(t.schema)),
      this.prisma.$queryRaw<
        {
          position: number;
          subscription_id: string | null;
          sequence: number | null;
          lease_token: string | null;
          event_type: string;
          occurred_at: Date;
          callback_url: string | null;
          sealed_secret: Uint8Array | null;
          sealed_previous_secret: Uint8Array | null;
          payload: PayloadForm | null;
          waits_for_earlier: boolean;
          erased: boolean;
        }[]
      >`
      WITH input AS (
        SELECT * FROM unnest(
                 ${column((e) => e.messageId)}::uuid[], ${column((e) => e.messageType)}::text[], ${column((e) => e.eventId)}::uuid[],
                 ${column((e) => e.eventType)}::text[], ${column((e) => e.partyId)}::text[], ${column((e) => e.requestIdentifier)}::text[],
                 ${column((e) => e.occurredAt.toISOString())}::timestamptz[], ${column((e) => this.fields.sealData(e.eventId, e.data))}::bytea[],
                 ${column((e) => (e.traceContext ? JSON.stringify(e.traceContext) : null))}::text[])
          WITH ORDINALITY AS i(message_id, message_type, event_id, event_type, party_id, request_identifier, occurred_at, sealed_data, trace_context, ord)
      ),
      inbox AS (
        INSERT INTO ${t.inbox} (message_id, message_type)
        SELECT message_id, message_type FROM input
        ON CONFLICT DO NOTHING
        RETURNING message_id
      ),
      fresh AS (
        SELECT DISTINCT ON (i.event_id) i.*
          FROM input i
         WHERE i.message_id IN (SELECT message_id FROM inbox)
           AND NOT EXISTS (SELECT 1 FROM ${t.delivery} d WHERE d.event_id = i.event_id)
         ORDER BY i.event_id, i.ord
      ),
      locked AS (
        SELECT s.id, s.party_id, s.event_type, s.status, s.callback_url, s.sealed_secret,
               ${previousSecretOf('s')} AS sealed_previous_secret, s.payload
          FROM ${t.subscription} s
         WHERE (s.party_id, s.event_type) IN (SELECT party_id, event_type FROM fresh)
         ORDER BY s.id
           FOR NO KEY UPDATE
      ),
      kept AS (
        -- Events of erased requests are not stored. The mark is read by a function in a snapshot of its
        -- own, and only once the subscription's row is locked (the condition names the locked row):
        -- this statement's snapshot may predate an erasure whose lock it has waited for.
        SELECT f.*
          FROM fresh f JOIN locked l ON l.party_id = f.party_id AND l.event_type = f.event_type
         WHERE NOT ${t.requestErased}(l.party_id, f.request_identifier)
      ),
      wanted AS (
        SELECT party_id, event_type, count(*)::int AS n FROM kept GROUP BY party_id, event_type
      ),
      numbered AS (
        UPDATE ${t.subscription} s
           SET last_sequence = s.last_sequence + w.n
          FROM locked l JOIN wanted w ON w.party_id = l.party_id AND w.event_type = l.event_type
         WHERE s.id = l.id
        RETURNING s.id, l.party_id, l.event_type, s.last_sequence - w.n AS before, l.status, l.callback_url, l.sealed_secret,
                  l.sealed_previous_secret, l.payload
      ),
      placed AS (
        -- Each event as its delivery row will be stored: pending, due now, not leased.
        SELECT f.*, n.id AS subscription_id, (n.before + row_number() OVER (PARTITION BY n.id ORDER BY f.ord))::int AS sequence,
               'pending' AS status, now() AS next_attempt_at, NULL::timestamptz AS leased_until,
               n.status AS subscription_status, n.callback_url, n.sealed_secret, n.sealed_previous_secret, n.payload
          FROM kept f JOIN numbered n ON n.party_id = f.party_id AND n.event_type = f.event_type
      ),
      judged AS (
        -- The claim rule, over the pending deliveries stored before and those of this batch.
        SELECT p.event_id, p.ord, ${mayBeClaimed('p', { subscriptionStatus: Prisma.sql`p.subscription_status`, among: [t.delivery, Prisma.raw('placed')] })} AS claimable
          FROM placed p
      ),
      flying AS MATERIALIZED (${inFlight(t)}),
      candidates AS (
        SELECT p.event_id, p.subscription_id, ${originOf(Prisma.sql`p.callback_url`)} AS origin, p.ord AS position
          FROM judged j JOIN placed p ON p.event_id = j.event_id
         WHERE j.claimable
      ),
      handed AS (
        SELECT event_id FROM (${withinCaps('candidates', 'flying', caps)}) fair ORDER BY turn, position LIMIT ${handOff.limit}
      ),
      stored AS (
        INSERT INTO ${t.delivery}
               (event_id, subscription_id, sequence, event_type, request_identifier, occurred_at, sealed_data, status, next_attempt_at, leased_until, lease_token,
                trace_context)
        SELECT p.event_id, p.subscription_id, p.sequence, p.event_type, p.request_identifier, p.occurred_at, p.sealed_data, p.status, p.next_attempt_at,
               CASE WHEN h.event_id IS NULL THEN p.leased_until ELSE ${lease.until} END,
               CASE WHEN h.event_id IS NULL THEN NULL ELSE ${lease.token} END,
               p.trace_context::jsonb
          FROM placed p LEFT JOIN handed h ON h.event_id = p.event_id
        RETURNING event_id, subscription_id, sequence, lease_token
      )
      SELECT (f.ord - 1)::int AS position, s.subscription_id::text AS subscription_id, s.sequence, s.lease_token::text AS lease_token,
             f.event_type, f.occurred_at, p.callback_url, p.sealed_secret, p.sealed_previous_secret, p.payload, NOT coalesce(j.claimable, false) AS waits_for_earlier,
             l.id IS NOT NULL AND k.event_id IS NULL AS erased
        FROM fresh f LEFT JOIN stored s ON s.event_id = f.event_id LEFT JOIN placed p ON p.event_id = f.event_id
             LEFT JOIN judged j ON j.event_id = f.event_id
             LEFT JOIN locked l ON l.party_id = f.party_id AND l.event_type = f.event_type LEFT JOIN kept k ON k.event_id = f.event_id`,
    ]);

    const outcomes: RecordOutcome[] = events.map(() => ({ kind: 'duplicate' }));
    const handedOver: SealedClaim[] = [];
    for (const row of rows) {
      if (row.subscription_id === null || row.sequence === null) {
        outcomes[row.position] = { kind: row.erased ? 'erased' : 'no-subscription' };
        continue;
      }
      const event = events[row.position]!;
      const { lease_token: leaseToken, callback_url: callbackUrl } = row;
      const claimed = leaseToken !== null && callbackUrl !== null;
      outcomes[row.position] = {
        kind: 'stored',
        subscriptionId: row.subscription_id,
        sequence: row.sequence,
        handedOver: claimed,
        waitsForEarlier: row.waits_for_earlier,
      };
      if (claimed) {
        handedOver.push({
          eventId: event.eventId,
          subscriptionId: row.subscription_id,
          partyId: event.partyId,
          requestIdentifier: event.requestIdentifier,
          sequence: row.sequence,
          eventType: row.event_type,
          occurredAt: row.occurred_at,
          // The Task as received: only the secret needs opening.
          data: { sealed: null, clear: event.data },
          attemptCount: 0,
          leaseToken,
          callbackUrl,
          secret: row.sealed_secret,
          previousSecret: row.sealed_previous_secret,
          payload: row.payload ?? 'full',
          ...(event.traceContext ? { traceContext: event.traceContext } : {}),
        });
      }
    }
    const { claimed, unreadable } = await openClaims(handedOver, this.fields);
    return { outcomes, claimed: claimed.sort((a, b) => a.sequence - b.sequence), unreadable };
  }
}
