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
  /** The message (or the event, under another message id) was recorded before. */
  | { kind: 'duplicate' }
  | { kind: 'no-subscription' };

/**
 * Stores an incoming event with its pending delivery, in one transaction with the inbox row. SQL
 * rather than Prisma's API where the database clock matters (`next_attempt_at = now()`: every
 * notifier process compares due times with the same clock).
 */
export class EventRepository {
  constructor(
    private readonly prisma: NotifierDatabase,
    private readonly tables: NotifierTables,
  ) {}

  record(event: IncomingEvent): Promise<RecordOutcome> {
    const t = this.tables;
    return this.prisma.$transaction(
      async (tx): Promise<RecordOutcome> => {
        const first = await tx.$executeRaw`
          INSERT INTO ${t.inbox} (message_id, message_type) VALUES (${event.messageId}::uuid, ${event.messageType})
          ON CONFLICT DO NOTHING`;
        if (first === 0) return { kind: 'duplicate' };
        const known = await tx.$queryRaw<unknown[]>`SELECT 1 FROM ${t.delivery} WHERE event_id = ${event.eventId}::uuid`;
        if (known.length > 0) return { kind: 'duplicate' };

        // The row lock this UPDATE takes serialises concurrent events of one subscription until
        // commit, and a rollback takes the number back: sequence numbers stay unique and gap-free.
        const [subscription] = await tx.$queryRaw<{ id: string; last_sequence: number }[]>`
          UPDATE ${t.subscription} SET last_sequence = last_sequence + 1
           WHERE party_id = ${event.partyId} AND event_type = ${event.eventType}
          RETURNING id, last_sequence`;
        if (!subscription) return { kind: 'no-subscription' };

        await tx.$executeRaw`
          INSERT INTO ${t.delivery}
                 (event_id, subscription_id, sequence, event_type, request_identifier, occurred_at, data, status, next_attempt_at)
          VALUES (${event.eventId}::uuid, ${subscription.id}::uuid, ${subscription.last_sequence}, ${event.eventType},
                  ${event.requestIdentifier}, ${event.occurredAt}::timestamptz, ${JSON.stringify(event.data)}::jsonb, 'pending', now())`;
        return { kind: 'stored', subscriptionId: subscription.id, sequence: subscription.last_sequence };
      },
      { timeout: 15_000, maxWait: 10_000 },
    );
  }
}
