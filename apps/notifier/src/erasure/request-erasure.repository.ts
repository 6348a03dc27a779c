import type { NotifierDatabase, NotifierTables } from '../persistence/database';
import type { ProtectedFields } from '../persistence/sealed-fields';

/** What an erasure changed: events discarded before delivery, and events whose Task lost its notes. */
export interface ErasureCounts {
  discarded: number;
  erased: number;
}

/**
 * The notifier's share of a request's erasure (intake's `request.erased.v1`, docs/data-protection.md):
 * the request's webhook events that are still pending are discarded (`withheld` with the reason
 * `request-erased`, shown in the delivery log; no next attempt,
 * their lease withdrawn, so that a worker sending one right now cannot mark it delivered), and the
 * Task every event of the request carries is sealed again without its notes, so that the events
 * feed still answers the tombstone (the Task's states). Only the referrer's own subscriptions.
 * The same transaction marks the request erased (`request_erasure`, the first erasedAt kept): a
 * manual retry of its events is refused, and an event of it that arrives later is not stored.
 * One transaction; a redelivered message finds nothing more to do.
 *
 * It locks the referrer's subscription rows first (the lock order of every writer here: subscriptions,
 * then their deliveries). The event store holds them while it stores a batch, and asks for the mark
 * in a fresh snapshot once it has them (`request_erased`): a batch in flight is either committed before
 * this transaction reads the deliveries, or sees the mark.
 */
export class RequestErasureRepository {
  constructor(
    private readonly prisma: NotifierDatabase,
    private readonly tables: NotifierTables,
    private readonly fields: ProtectedFields,
  ) {}

  erase(request: { requestIdentifier: string; referrerPartyId: string; erasedAt: Date }): Promise<ErasureCounts> {
    const t = this.tables;
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM ${t.subscription} WHERE party_id = ${request.referrerPartyId} ORDER BY id FOR NO KEY UPDATE`;
      await tx.$executeRaw`
        INSERT INTO ${t.erasure} (request_identifier, party_id, erased_at)
        VALUES (${request.requestIdentifier}, ${request.referrerPartyId}, ${request.erasedAt.toISOString()}::timestamptz)
        ON CONFLICT DO NOTHING`;
      const rows = await tx.$queryRaw<{ event_id: string; status: string; sealed_data: Uint8Array }[]>`
        SELECT d.event_id::text AS event_id, d.status, d.sealed_data
          FROM ${t.delivery} d JOIN ${t.subscription} s ON s.id = d.subscription_id
         WHERE d.request_identifier = ${request.requestIdentifier} AND s.party_id = ${request.referrerPartyId}
         ORDER BY d.event_id
           FOR UPDATE OF d`;
      let discarded = 0;
      for (const row of rows) {
        const task = await this.fields.openData(row.event_id, { sealed: row.sealed_data, clear: null });
        const withoutNotes = withoutNotesOf(task);
        const sealed = Buffer.from(this.fields.sealData(row.event_id, withoutNotes));
        const pending = row.status === 'pending';
        if (pending) discarded += 1;
        await tx.$executeRaw`
          UPDATE ${t.delivery}
             SET sealed_data = ${sealed},
                 status = CASE WHEN status = 'pending' THEN 'withheld' ELSE status END,
                 withheld_reason = CASE WHEN status = 'pending' THEN 'request-erased' ELSE withheld_reason END,
                 withheld_at = CASE WHEN status = 'pending' THEN now() ELSE withheld_at END,
                 next_attempt_at = CASE WHEN status = 'pending' THEN NULL ELSE next_attempt_at END,
                 leased_until = NULL, lease_token = NULL
           WHERE event_id = ${row.event_id}::uuid`;
      }
      return { discarded, erased: rows.length };
    });
  }
}

/** The Task of an event without what the clinic wrote about the patient (`note`). */
function withoutNotesOf(task: unknown): unknown {
  if (typeof task !== 'object' || task === null) return task;
  return Object.fromEntries(Object.entries(task).filter(([name]) => name !== 'note'));
}
