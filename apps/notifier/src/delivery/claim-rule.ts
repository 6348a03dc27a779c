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
 *   be it due, in flight or waiting for a retry (docs/webhooks.md, "Order");
 * - its subscription, and its callback URL's origin (scheme, host and port: one receiver's server,
 *   perhaps of several subscriptions), have fewer attempts in flight than their caps
 *   (InFlightCaps), counting those the same statement claims, so that one party's slow receiver
 *   cannot take every slot (docs/webhooks.md, "Fair delivery"). Among the deliveries that may go,
 *   the statements take turns between subscriptions: each one's first due delivery before any one's
 *   second. The counts are of leased rows in the table, and the claiming statements take turns
 *   under one transaction-level advisory lock (claimTurn), so the caps hold over every notifier
 *   process.
 */

/** Attempts in flight at once, over every notifier process (WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION, …_PER_ORIGIN). */
export interface InFlightCaps {
  readonly perSubscription: number;
  readonly perOrigin: number;
}

/** No caps (tests of other rules, and callers that give none). */
export const UNCAPPED: InFlightCaps = { perSubscription: 2 ** 31 - 1, perOrigin: 2 ** 31 - 1 };

/** The origin of a callback URL (`https://hooks.example:8443`), lower-cased: where its receiver runs. */
export function originOf(callbackUrl: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`lower(substring(${callbackUrl} from '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*'))`;
}

/**
 * The statement's turn to claim: a transaction-level advisory lock per notifier schema, taken first in
 * the claiming transaction, so that its statement counts what the others have in flight (its
 * snapshot is taken after the lock) and none claims past a cap beside it.
 *
 * It also has the claiming statement read the pending deliveries with plain index scans (for this
 * transaction only). Every delivery leaves its pending versions in the indexes until VACUUM removes
 * them; a bitmap scan visits each of them in the table on every claim, so claims slow down as long
 * as VACUUM does not come (autovacuum lagging or off). A plain index scan marks the dead entries it
 * passes, skips them after, and the index drops them when new deliveries need their page.
 */
export function claimTurn(schema: string): Prisma.Sql {
  return Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(${`bedrequest-delivery-claims:${schema}`}, 0)), set_config('enable_bitmapscan', 'off', true)`;
}

/**
 * A CTE body: per subscription and origin, how many of their deliveries are in flight (pending
 * under a live lease), from `delivery` and `subscription` (the tables).
 */
export function inFlight(tables: { delivery: Prisma.Sql; subscription: Prisma.Sql }): Prisma.Sql {
  return Prisma.sql`
    SELECT f.subscription_id, ${originOf(Prisma.sql`s.callback_url`)} AS origin, count(*)::int AS n
      FROM ${tables.delivery} f JOIN ${tables.subscription} s ON s.id = f.subscription_id
     WHERE f.status = 'pending' AND f.leased_until >= now()
     GROUP BY f.subscription_id, origin`;
}

/**
 * Of `candidates` (a CTE of deliveries that may be claimed, with `event_id`, `subscription_id`,
 * `origin` and `position`, their order otherwise), those within the caps given what `flying` (the
 * inFlight CTE) holds, each with its `turn`: claim them ordered by `turn`, then `position`.
 */
export function withinCaps(candidates: string, flying: string, caps: InFlightCaps): Prisma.Sql {
  const [c, f] = [Prisma.raw(candidates), Prisma.raw(flying)];
  return Prisma.sql`
    SELECT ranked.event_id, ranked.turn, ranked.position FROM (
      SELECT per_subscription.*, row_number() OVER (PARTITION BY per_subscription.origin ORDER BY per_subscription.turn, per_subscription.position) AS origin_turn
        FROM (
          SELECT c.event_id, c.subscription_id, c.origin, c.position,
                 row_number() OVER (PARTITION BY c.subscription_id ORDER BY c.position) AS turn
            FROM ${c} c
        ) per_subscription
       WHERE per_subscription.turn + coalesce((SELECT sum(f.n) FROM ${f} f WHERE f.subscription_id = per_subscription.subscription_id), 0) <= ${caps.perSubscription}
    ) ranked
     WHERE ranked.origin_turn + coalesce((SELECT sum(f.n) FROM ${f} f WHERE f.origin = ranked.origin), 0) <= ${caps.perOrigin}`;
}

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
  // OFFSET 0 keeps the look-up a subplan run per delivery with its request as the index key
  // (delivery_pending_by_request_idx). As an anti-join the planner may instead, from statistics
  // taken while nothing was pending, read every pending entry once per due delivery.
  const noEarlierPending = context.among.map(
    (deliveries) => Prisma.sql`
      AND NOT EXISTS (
            SELECT 1 FROM ${deliveries} earlier
             WHERE earlier.status = 'pending' AND earlier.subscription_id = ${r}.subscription_id AND earlier.request_identifier = ${r}.request_identifier
               AND (earlier.occurred_at, earlier.sequence) < (${r}.occurred_at, ${r}.sequence)
            OFFSET 0)`,
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

/**
 * The subscription's previous secret while its rotation's overlap runs, else NULL: a claim signs
 * with it beside the current one (docs/webhooks.md, "Rotating the secret"). An expired one is never
 * used, even before the maintenance run deletes it.
 */
export function previousSecretOf(subscription: string): Prisma.Sql {
  const s = Prisma.raw(subscription);
  return Prisma.sql`CASE WHEN ${s}.previous_secret_expires_at > now() THEN ${s}.sealed_previous_secret END`;
}
