import { Prisma } from '../generated/prisma/client';

/*
 * The claim rule: which deliveries may be taken for an attempt now, and what taking one writes.
 * Stated once, here, for the two statements that claim: the worker's claim of due deliveries
 * (DeliveryRepository.claimDue) and the statement that stores a batch of events and claims those
 * that can go out at once (EventRepository.recordAll). How many at once is not the statements' to
 * decide: each is given the worker's free slots as its limit (DeliveryWorker).
 *
 * A delivery may be claimed when
 * - it is due: pending, its next attempt time has come, and no live lease holds it (a lease runs
 *   out only when its worker died mid-attempt). Times are the database's (`now()`), the one clock
 *   all notifier processes share;
 * - its subscription is active: a disabled subscription's events wait until a PUT re-enables it;
 * - no earlier event (by occurrence, then sequence) of its request to its subscription is pending,
 *   be it due, in flight or waiting for a retry (docs/webhooks.md, "Order").
 */

/** Pending, due, and not held by a live lease: `row` names the delivery (a table alias). */
export function isDue(row: string): Prisma.Sql {
  const r = Prisma.raw(row);
  return Prisma.sql`${r}.status = 'pending' AND ${r}.next_attempt_at <= now() AND (${r}.leased_until IS NULL OR ${r}.leased_until < now())`;
}

/**
 * The whole rule for the delivery `row` (a table alias with the columns of a delivery row), whose
 * subscription the statement read with `subscriptionStatus`. `among` are the deliveries the order
 * rule looks at: the table, and where the statement stores the row itself also the rows it is
 * storing, which a statement does not see in the table.
 */
export function mayBeClaimed(row: string, context: { subscriptionStatus: Prisma.Sql; among: readonly Prisma.Sql[] }): Prisma.Sql {
  const r = Prisma.raw(row);
  const noEarlierPending = context.among.map(
    (deliveries) => Prisma.sql`
      AND NOT EXISTS (
            SELECT 1 FROM ${deliveries} earlier
             WHERE earlier.status = 'pending' AND earlier.subscription_id = ${r}.subscription_id AND earlier.request_identifier = ${r}.request_identifier
               AND (earlier.occurred_at, earlier.sequence) < (${r}.occurred_at, ${r}.sequence))`,
  );
  return Prisma.sql`${isDue(row)} AND ${context.subscriptionStatus} = 'active' ${Prisma.join(noEarlierPending, ' ')}`;
}

/**
 * What a claim writes: a lease of `leaseMs` (the attempt's timeout and the time to record it, see
 * DeliveryWorker) and a new token, which the attempt's outcome must show to be recorded.
 */
export function newLease(leaseMs: number): { until: Prisma.Sql; token: Prisma.Sql } {
  return { until: Prisma.sql`now() + ${leaseMs} * interval '1 millisecond'`, token: Prisma.sql`gen_random_uuid()` };
}
