import type { NotifierDatabase, NotifierTables } from '../persistence/database';

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
}

export type RecordOutcome =
  | { kind: 'stored'; subscriptionId: string; sequence: number }
  /** The message (or the event, under another message id, also earlier in the same batch) was recorded before. */
  | { kind: 'duplicate' }
  | { kind: 'no-subscription' };

/**
 * Stores incoming events with their pending deliveries. SQL rather than Prisma's API where the
 * database clock matters (`next_attempt_at = now()`: every notifier process compares due times with
 * the same clock) and to do a whole batch in one statement.
 */
export class EventRepository {
  constructor(
    private readonly prisma: NotifierDatabase,
    private readonly tables: NotifierTables,
  ) {}

  /**
   * Stores a batch of events in ONE statement (atomic on its own: all or nothing), in the batch's
   * order: records every message id in the inbox; skips messages seen before and events already
   * stored (also a second message of one event within the batch); takes the sequence numbers of
   * each subscription with one `last_sequence + <its count>` and numbers its events in batch order;
   * stores the pending deliveries, due now. Returns one outcome per event, in order.
   *
   * Sequence numbers stay unique and gap-free across notifier processes: the subscription's row lock
   * serialises concurrent batches until commit, and a failed statement takes its numbers back. The
   * rows are locked in id order, so two batches naming the same subscriptions cannot deadlock. An
   * event stored concurrently by another process under another message id makes the delivery
   * INSERT fail on its key (rather than skip it, which would leave a gap): the batch is then split
   * by the consumer and that event found stored on its own.
   */
  async recordAll(events: readonly IncomingEvent[]): Promise<RecordOutcome[]> {
    if (events.length === 0) return [];
    const t = this.tables;
    const column = <T>(value: (event: IncomingEvent) => T) => events.map(value);
    const rows = await this.prisma.$queryRaw<{ position: number; subscription_id: string | null; sequence: number | null }[]>`
      WITH input AS (
        SELECT * FROM unnest(
                 ${column((e) => e.messageId)}::uuid[], ${column((e) => e.messageType)}::text[], ${column((e) => e.eventId)}::uuid[],
                 ${column((e) => e.eventType)}::text[], ${column((e) => e.partyId)}::text[], ${column((e) => e.requestIdentifier)}::text[],
                 ${column((e) => e.occurredAt.toISOString())}::timestamptz[], ${column((e) => JSON.stringify(e.data))}::jsonb[])
          WITH ORDINALITY AS i(message_id, message_type, event_id, event_type, party_id, request_identifier, occurred_at, data, ord)
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
      wanted AS (
        SELECT party_id, event_type, count(*)::int AS n FROM fresh GROUP BY party_id, event_type
      ),
      locked AS (
        SELECT s.id, s.party_id, s.event_type
          FROM ${t.subscription} s
         WHERE (s.party_id, s.event_type) IN (SELECT party_id, event_type FROM wanted)
         ORDER BY s.id
           FOR NO KEY UPDATE
      ),
      numbered AS (
        UPDATE ${t.subscription} s
           SET last_sequence = s.last_sequence + w.n
          FROM locked l JOIN wanted w ON w.party_id = l.party_id AND w.event_type = l.event_type
         WHERE s.id = l.id
        RETURNING s.id, l.party_id, l.event_type, s.last_sequence - w.n AS before
      ),
      stored AS (
        INSERT INTO ${t.delivery}
               (event_id, subscription_id, sequence, event_type, request_identifier, occurred_at, data, status, next_attempt_at)
        SELECT f.event_id, n.id, n.before + row_number() OVER (PARTITION BY n.id ORDER BY f.ord), f.event_type,
               f.request_identifier, f.occurred_at, f.data, 'pending', now()
          FROM fresh f JOIN numbered n ON n.party_id = f.party_id AND n.event_type = f.event_type
        RETURNING event_id, subscription_id, sequence
      )
      SELECT (f.ord - 1)::int AS position, s.subscription_id::text AS subscription_id, s.sequence
        FROM fresh f LEFT JOIN stored s ON s.event_id = f.event_id`;

    const outcomes: RecordOutcome[] = events.map(() => ({ kind: 'duplicate' }));
    for (const row of rows) {
      outcomes[row.position] =
        row.subscription_id === null || row.sequence === null ? { kind: 'no-subscription' } : { kind: 'stored', subscriptionId: row.subscription_id, sequence: row.sequence };
    }
    return outcomes;
  }
}
