import type { WithheldReason } from '@bedrequest/contracts';
import type { NotifierDatabase, NotifierTables } from '../persistence/database';
import type { ClaimedDelivery } from './claimed-delivery';

/**
 * Deliveries the worker claimed and does not send, because their subscriber may no longer see the
 * Task (docs/webhooks.md, "Authorization at delivery time"): each is `withheld` with its reason and
 * time, no next attempt, its claim ended. Only while the claim is still the worker's (same lease
 * token). It touches the delivery row alone, so it waits for no subscription lock.
 */
export class WithheldDeliveries {
  constructor(
    private readonly prisma: NotifierDatabase,
    private readonly tables: NotifierTables,
  ) {}

  async withhold(claim: Pick<ClaimedDelivery, 'eventId' | 'leaseToken'>, reason: WithheldReason): Promise<boolean> {
    const count = await this.prisma.$executeRaw`
      UPDATE ${this.tables.delivery}
         SET status = 'withheld', withheld_reason = ${reason}, withheld_at = now(), next_attempt_at = NULL, leased_until = NULL, lease_token = NULL
       WHERE event_id = ${claim.eventId}::uuid AND lease_token = ${claim.leaseToken}::uuid AND status = 'pending'`;
    return count === 1;
  }
}
