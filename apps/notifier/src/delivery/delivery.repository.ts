import { Prisma } from '../generated/prisma/client';
import type { NotifierDatabase, NotifierTables } from '../persistence/database';
import type { ProtectedFields } from '../persistence/sealed-fields';
import { claimTurn, isDue, newLease, UNCAPPED, type InFlightCaps } from './claim-rule';
import { openClaims, type ClaimResult, type ClaimedDelivery } from './claimed-delivery';
import { claimDueSql, type ClaimedRow } from './due-claim';
import { describeDuration } from './durations';
import type { NextStep } from './retry-policy';

export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** A finished attempt of a claimed delivery and what follows from it. */
export interface FinishedAttempt {
  claim: Pick<ClaimedDelivery, 'eventId' | 'subscriptionId' | 'leaseToken'>;
  attempt: AttemptRecord;
  step: NextStep;
}

/** A subscription that the recorded attempts disabled (410 Gone, or failing for too long). */
export interface DisabledSubscription {
  subscriptionId: string;
  reason: string;
}

const ms = (value: number | Prisma.Sql) => Prisma.sql`(${value} * interval '1 millisecond')`;

/**
 * The durable delivery schedule. Everything time-related uses the database clock (`now()`), the
 * one clock all notifier processes share. Raw SQL because claiming needs `FOR UPDATE SKIP LOCKED`.
 */
export class DeliveryRepository {
  constructor(
    private readonly prisma: NotifierDatabase,
    private readonly tables: NotifierTables,
    private readonly fields: ProtectedFields,
  ) {}

  /** How many deliveries are due now (the claim rule's `isDue`): the backlog the workers have not taken yet. */
  async countDue(): Promise<number> {
    const [row] = await this.prisma.$queryRaw<{ due: number }[]>`SELECT count(*)::int AS due FROM ${this.tables.delivery} d WHERE ${isDue('d')}`;
    return row?.due ?? 0;
  }

  /**
   * Claims up to `limit` deliveries the claim rule allows (claim-rule.ts), oldest due first, for
   * `leaseMs`. Several processes claim concurrently: SKIP LOCKED lets each pass over rows another
   * is claiming, and the lease keeps a claimed row from being claimed again while its attempt runs
   * (the statement: claimDueSql).
   *
   * The Tasks and secrets are opened here (SealedFields); a claim whose values do not open is returned as unreadable.
   */
  async claimDue(limit: number, leaseMs: number, caps: InFlightCaps = UNCAPPED): Promise<ClaimResult> {
    const t = this.tables;
    const [, rows] = await this.prisma.$transaction([
      this.prisma.$executeRaw(claimTurn(t.schema)),
      this.prisma.$queryRaw<ClaimedRow[]>(claimDueSql(t, limit, newLease(leaseMs), caps)),
    ]);
    const claims = rows.map((row) => ({
      eventId: row.event_id,
      subscriptionId: row.subscription_id,
      partyId: row.party_id,
      requestIdentifier: row.request_identifier,
      sequence: row.sequence,
      eventType: row.event_type,
      occurredAt: row.occurred_at,
      data: { sealed: row.sealed_data, clear: null },
      attemptCount: row.attempt_count,
      leaseToken: row.lease_token,
      callbackUrl: row.callback_url,
      secret: row.sealed_secret,
      previousSecret: row.sealed_previous_secret,
      payload: row.payload,
      ...(row.trace_context ? { traceContext: row.trace_context } : {}),
    }));
    return openClaims(claims, this.fields);
  }

  /**
   * Gives claims back unattempted (a stopping worker's attempts still under way): each is due again
   * at once for any worker, as if it had never been claimed. Only while the claim is still the
   * worker's (same lease token); an attempt recorded meanwhile has already ended the claim.
   */
  async releaseClaims(claims: readonly Pick<ClaimedDelivery, 'eventId' | 'leaseToken'>[]): Promise<void> {
    if (claims.length === 0) return;
    await this.prisma.$executeRaw`
      UPDATE ${this.tables.delivery} d SET leased_until = NULL, lease_token = NULL
        FROM unnest(${claims.map((claim) => claim.eventId)}::uuid[], ${claims.map((claim) => claim.leaseToken)}::uuid[]) AS c(event_id, lease_token)
       WHERE d.event_id = c.event_id AND d.lease_token = c.lease_token`;
  }

  /**
   * Records finished attempts in ONE statement (atomic on its own), in the order given (the order
   * they finished), and applies their next steps:
   *
   * - an attempt row for every attempt whose delivery still exists;
   * - the delivery's state, only while the claim is still this worker's (same lease token: after a
   *   lost lease another worker owns it): delivered, retry after the delay, given up, or kept
   *   pending, due, for when a disabled subscription is re-enabled;
   * - the subscription: a success ends a run of failures (`failing_since` cleared); a failure
   *   starts one (or continues it, and disables the subscription once it has lasted
   *   `disableAfterMs`); 410 Gone disables it. Within the batch these follow the attempts' order, as
   *   if they had been recorded one by one; `updated_at` changes only with the row.
   *
   * Lock order: the subscription rows first (id order), then their deliveries, as DELETE and
   * address changes lock a subscription before its deliveries, so a deletion during an attempt
   * waits instead of deadlocking. Only subscriptions the batch may change are locked for update; a
   * healthy one whose attempts all succeeded is only kept from being deleted (KEY SHARE), which the
   * event store's update of its sequence number does not wait for. Every delivery change joins `locked`, so a delivery is locked only
   * after its subscription; the attempt rows' key checks run at the end of the statement. A
   * subscription deleted meanwhile has taken its events along: nothing is recorded for them.
   */
  async recordAttempts(finished: readonly FinishedAttempt[], disableAfterMs: number): Promise<DisabledSubscription[]> {
    if (finished.length === 0) return [];
    const t = this.tables;
    const column = <T>(value: (entry: FinishedAttempt) => T) => finished.map(value);
    const failingTooLong = `every delivery attempt has failed for ${describeDuration(disableAfterMs)}`;
    const rows = await this.prisma.$queryRaw<{ subscription_id: string; disabled_reason: string }[]>`
      WITH input AS (
        SELECT * FROM unnest(
                 ${column((f) => f.claim.eventId)}::uuid[], ${column((f) => f.claim.subscriptionId)}::uuid[], ${column((f) => f.claim.leaseToken)}::uuid[],
                 ${column((f) => f.attempt.attemptedAt.toISOString())}::timestamptz[], ${column((f) => f.attempt.statusCode)}::int[],
                 ${column((f) => f.attempt.error)}::text[], ${column((f) => f.attempt.durationMs)}::int[], ${column((f) => f.step.kind)}::text[],
                 ${column((f) => (f.step.kind === 'retry' ? f.step.delayMs : null))}::bigint[],
                 ${column((f) => (f.step.kind === 'disable-subscription' ? f.step.reason : null))}::text[])
          WITH ORDINALITY AS i(event_id, subscription_id, lease_token, attempted_at, status_code, error, duration_ms, step, delay_ms, reason, ord)
      ),
      failed AS (
        SELECT DISTINCT subscription_id FROM input WHERE step <> 'delivered'
      ),
      locked AS (
        -- Subscriptions this batch may change: a failure in it, or a run of failures to end.
        SELECT s.id, s.status, s.failing_since
          FROM ${t.subscription} s
         WHERE s.id IN (SELECT subscription_id FROM input)
           AND (s.id IN (SELECT subscription_id FROM failed) OR s.failing_since IS NOT NULL OR s.status <> 'active')
         ORDER BY s.id
           FOR NO KEY UPDATE
      ),
      kept AS (
        -- The others only must not be deleted meanwhile. KEY SHARE does not wait for the event store's
        -- sequence update of the same row (a subscription's every event bumps it), NO KEY UPDATE would.
        SELECT s.id
          FROM ${t.subscription} s
         WHERE s.id IN (SELECT subscription_id FROM input) AND s.id NOT IN (SELECT id FROM locked)
         ORDER BY s.id
           FOR KEY SHARE
      ),
      alive AS (
        SELECT id FROM locked UNION ALL SELECT id FROM kept
      ),
      attempts AS (
        INSERT INTO ${t.attempt} (event_id, attempted_at, status_code, error, duration_ms)
        SELECT i.event_id, i.attempted_at, i.status_code, i.error, i.duration_ms
          FROM input i JOIN alive l ON l.id = i.subscription_id
         WHERE EXISTS (SELECT 1 FROM ${t.delivery} d WHERE d.event_id = i.event_id)
         ORDER BY i.ord
      ),
      moved AS (
        UPDATE ${t.delivery} d
           SET status = CASE i.step WHEN 'delivered' THEN 'delivered' WHEN 'exhausted' THEN 'failed' ELSE d.status END,
               delivered_at = CASE WHEN i.step = 'delivered' THEN now() ELSE d.delivered_at END,
               next_attempt_at = CASE i.step
                                   WHEN 'retry' THEN now() + ${ms(Prisma.sql`i.delay_ms`)}
                                   -- Kept pending: it goes out first when the subscription is re-enabled.
                                   WHEN 'disable-subscription' THEN now()
                                   ELSE NULL END,
               attempt_count = d.attempt_count + 1, leased_until = NULL, lease_token = NULL
          FROM input i JOIN alive l ON l.id = i.subscription_id
         WHERE d.event_id = i.event_id AND d.lease_token = i.lease_token
      ),
      outcomes AS (
        SELECT i.subscription_id AS id,
               min(i.ord) FILTER (WHERE i.step = 'delivered') AS first_success,
               max(i.ord) FILTER (WHERE i.step = 'delivered') AS last_success,
               min(i.ord) FILTER (WHERE i.step IN ('retry', 'exhausted')) AS first_failure,
               max(i.ord) FILTER (WHERE i.step IN ('retry', 'exhausted')) AS last_failure,
               min(i.ord) FILTER (WHERE i.step = 'disable-subscription') AS first_gone,
               (array_agg(i.reason ORDER BY i.ord) FILTER (WHERE i.step = 'disable-subscription'))[1] AS gone_reason,
               -- The batch's last failed attempt: the subscription's last error (shown beside its status).
               (array_agg(i.attempted_at ORDER BY i.ord DESC) FILTER (WHERE i.step <> 'delivered'))[1] AS last_error_at,
               (array_agg(i.status_code ORDER BY i.ord DESC) FILTER (WHERE i.step <> 'delivered'))[1] AS last_error_status_code,
               (array_agg(i.error ORDER BY i.ord DESC) FILTER (WHERE i.step <> 'delivered'))[1] AS last_error
          FROM input i GROUP BY i.subscription_id
      ),
      judged AS (
        SELECT l.id, l.status AS status_before, o.first_failure, o.first_gone, o.gone_reason, o.last_error_at, o.last_error_status_code, o.last_error,
               -- The first failure of the batch, before any success in it, finds a run that has lasted too long.
               (l.status = 'active' AND l.failing_since IS NOT NULL AND now() - l.failing_since >= ${ms(disableAfterMs)}
                AND o.first_failure IS NOT NULL AND (o.first_success IS NULL OR o.first_failure < o.first_success)) AS too_long,
               CASE
                 WHEN o.last_failure IS NOT NULL AND (o.last_success IS NULL OR o.last_failure > o.last_success) AND l.status = 'active'
                   THEN CASE WHEN o.last_success IS NULL THEN COALESCE(l.failing_since, now()) ELSE now() END
                 WHEN o.last_success IS NOT NULL THEN NULL
                 ELSE l.failing_since
               END AS failing_since
          FROM locked l JOIN outcomes o ON o.id = l.id
      ),
      next AS (
        SELECT id, status_before, failing_since, last_error_at, last_error_status_code, last_error,
               CASE WHEN too_long OR (status_before = 'active' AND first_gone IS NOT NULL) THEN 'disabled' ELSE status_before END AS status,
               CASE WHEN too_long AND (first_gone IS NULL OR first_failure < first_gone) THEN ${failingTooLong}
                    WHEN status_before = 'active' AND first_gone IS NOT NULL THEN gone_reason
               END AS disabled_reason
          FROM judged
      ),
      changed AS (
        UPDATE ${t.subscription} s
           SET failing_since = n.failing_since,
               status = n.status,
               disabled_reason = CASE WHEN n.status <> n.status_before THEN n.disabled_reason ELSE s.disabled_reason END,
               last_error_at = coalesce(n.last_error_at, s.last_error_at),
               last_error_status_code = CASE WHEN n.last_error_at IS NULL THEN s.last_error_status_code ELSE n.last_error_status_code END,
               last_error = CASE WHEN n.last_error_at IS NULL THEN s.last_error ELSE n.last_error END,
               updated_at = now()
          FROM next n
         WHERE s.id = n.id AND (s.failing_since IS DISTINCT FROM n.failing_since OR s.status <> n.status OR n.last_error_at IS NOT NULL)
        RETURNING s.id, s.status, s.disabled_reason, n.status_before
      )
      SELECT id::text AS subscription_id, disabled_reason FROM changed WHERE status = 'disabled' AND status_before = 'active'`;
    return rows.map((row) => ({ subscriptionId: row.subscription_id, reason: row.disabled_reason }));
  }

  /**
   * Deletes delivered and given-up events older than `retentionMs` (they stay readable through
   * `/events?since=` until then) and inbox rows as old: a message is not redelivered after days.
   * Pending events (e.g. of a disabled subscription) are kept whatever their age.
   */
  async purgeOlderThan(retentionMs: number): Promise<{ deliveries: number }> {
    const t = this.tables;
    const deliveries = await this.prisma.$executeRaw`
      DELETE FROM ${t.delivery} WHERE status IN ('delivered', 'failed', 'withheld') AND created_at < now() - ${ms(retentionMs)}`;
    await this.prisma.$executeRaw`DELETE FROM ${t.inbox} WHERE processed_at < now() - ${ms(retentionMs)}`;
    return { deliveries };
  }
}
