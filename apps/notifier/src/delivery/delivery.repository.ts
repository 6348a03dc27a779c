import { Prisma } from '../generated/prisma/client';
import type { NotifierDatabase, NotifierTables } from '../persistence/database';
import type { NextStep } from './retry-policy';

/** A due delivery a worker has claimed, with its subscription's address and secret as they are now. */
export interface ClaimedDelivery {
  eventId: string;
  subscriptionId: string;
  sequence: number;
  eventType: string;
  occurredAt: Date;
  data: unknown;
  /** Attempts made in the current schedule before this one. */
  attemptCount: number;
  leaseToken: string;
  callbackUrl: string;
  secret: string;
}

export interface AttemptRecord {
  attemptedAt: Date;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const ms = (value: number) => Prisma.sql`(${value} * interval '1 millisecond')`;

/**
 * The durable delivery schedule. Everything time-related uses the database clock (`now()`), the
 * one clock all notifier processes share. Raw SQL because claiming needs `FOR UPDATE SKIP LOCKED`.
 */
export class DeliveryRepository {
  constructor(
    private readonly prisma: NotifierDatabase,
    private readonly tables: NotifierTables,
  ) {}

  /**
   * Claims up to `limit` due deliveries for `leaseMs`. Several processes claim concurrently: SKIP
   * LOCKED lets each pass over rows another is claiming, and the lease keeps a claimed row from
   * being claimed again while its attempt runs; a process that dies loses its claims when the
   * lease runs out. Per-request order: a delivery is not due while an earlier event (by occurrence,
   * then sequence) of the same request to the same subscription is still pending, in flight or
   * waiting for a retry. Disabled subscriptions are skipped; their events wait.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedDelivery[]> {
    const t = this.tables;
    const rows = await this.prisma.$queryRaw<
      {
        event_id: string;
        subscription_id: string;
        sequence: number;
        event_type: string;
        occurred_at: Date;
        data: unknown;
        attempt_count: number;
        lease_token: string;
        callback_url: string;
        secret: string;
      }[]
    >`
      WITH due AS (
        SELECT d.event_id
          FROM ${t.delivery} d
          JOIN ${t.subscription} s ON s.id = d.subscription_id
         WHERE d.status = 'pending'
           AND d.next_attempt_at <= now()
           AND (d.leased_until IS NULL OR d.leased_until < now())
           AND s.status = 'active'
           AND NOT EXISTS (
                 SELECT 1 FROM ${t.delivery} earlier
                  WHERE earlier.subscription_id = d.subscription_id
                    AND earlier.request_identifier = d.request_identifier
                    AND earlier.status = 'pending'
                    AND (earlier.occurred_at, earlier.sequence) < (d.occurred_at, d.sequence))
         ORDER BY d.next_attempt_at
         LIMIT ${limit}
         FOR UPDATE OF d SKIP LOCKED)
      UPDATE ${t.delivery} d
         SET leased_until = now() + ${ms(leaseMs)}, lease_token = gen_random_uuid()
        FROM due, ${t.subscription} s
       WHERE d.event_id = due.event_id AND s.id = d.subscription_id
      RETURNING d.event_id, d.subscription_id, d.sequence, d.event_type, d.occurred_at, d.data, d.attempt_count,
                d.lease_token, s.callback_url, s.secret`;
    return rows.map((row) => ({
      eventId: row.event_id,
      subscriptionId: row.subscription_id,
      sequence: row.sequence,
      eventType: row.event_type,
      occurredAt: row.occurred_at,
      data: row.data,
      attemptCount: row.attempt_count,
      leaseToken: row.lease_token,
      callbackUrl: row.callback_url,
      secret: row.secret,
    }));
  }

  /**
   * Records an attempt and applies the next step. The delivery's state changes only while the
   * claim is still this worker's (same lease token): after a lost lease another worker owns it.
   * Returns the reason when this attempt disabled the subscription.
   */
  async recordAttempt(claim: ClaimedDelivery, attempt: AttemptRecord, step: NextStep, disableAfterMs: number): Promise<{ disabledReason?: string }> {
    const t = this.tables;
    return this.prisma.$transaction(
      async (tx) => {
        // The subscription row first, as DELETE and address changes lock it (then its deliveries):
        // the same lock order everywhere, so a deletion during an attempt waits instead of deadlocking.
        const [subscription] = await tx.$queryRaw<unknown[]>`
          SELECT 1 FROM ${t.subscription} WHERE id = ${claim.subscriptionId}::uuid FOR NO KEY UPDATE`;
        if (!subscription) return {}; // deleted meanwhile, with its events: nothing to record
        await tx.$executeRaw`
          INSERT INTO ${t.attempt} (event_id, attempted_at, status_code, error, duration_ms)
          SELECT event_id, ${attempt.attemptedAt}::timestamptz, ${attempt.statusCode}::integer, ${attempt.error}::text, ${attempt.durationMs}::integer
            FROM ${t.delivery} WHERE event_id = ${claim.eventId}::uuid`;

        const next = {
          delivered: Prisma.sql`status = 'delivered', delivered_at = now(), next_attempt_at = NULL`,
          retry: Prisma.sql`next_attempt_at = now() + ${ms(step.kind === 'retry' ? step.delayMs : 0)}`,
          exhausted: Prisma.sql`status = 'failed', next_attempt_at = NULL`,
          // Kept pending: it goes out first when the subscription is re-enabled.
          'disable-subscription': Prisma.sql`next_attempt_at = now()`,
        }[step.kind];
        await tx.$executeRaw`
          UPDATE ${t.delivery}
             SET ${next}, attempt_count = attempt_count + 1, leased_until = NULL, lease_token = NULL
           WHERE event_id = ${claim.eventId}::uuid AND lease_token = ${claim.leaseToken}::uuid`;

        if (step.kind === 'delivered') {
          await tx.$executeRaw`UPDATE ${t.subscription} SET failing_since = NULL WHERE id = ${claim.subscriptionId}::uuid AND failing_since IS NOT NULL`;
          return {};
        }
        if (step.kind === 'disable-subscription') {
          const disabled = await tx.$executeRaw`
            UPDATE ${t.subscription} SET status = 'disabled', disabled_reason = ${step.reason}, updated_at = now()
             WHERE id = ${claim.subscriptionId}::uuid AND status = 'active'`;
          return disabled ? { disabledReason: step.reason } : {};
        }
        const reason = `every delivery attempt has failed for ${describeDuration(disableAfterMs)}`;
        const [updated] = await tx.$queryRaw<{ status: string }[]>`
          UPDATE ${t.subscription}
             SET failing_since = COALESCE(failing_since, now()),
                 status = CASE WHEN now() - failing_since >= ${ms(disableAfterMs)} THEN 'disabled' ELSE status END,
                 disabled_reason = CASE WHEN now() - failing_since >= ${ms(disableAfterMs)} THEN ${reason} ELSE disabled_reason END,
                 updated_at = now()
           WHERE id = ${claim.subscriptionId}::uuid AND status = 'active'
          RETURNING status`;
        return updated?.status === 'disabled' ? { disabledReason: reason } : {};
      },
      { timeout: 15_000, maxWait: 10_000 },
    );
  }

  /**
   * Deletes delivered and given-up events older than `retentionMs` (they stay readable through
   * `/events?since=` until then) and inbox rows as old: a message is not redelivered after days.
   * Pending events (e.g. of a disabled subscription) are kept whatever their age.
   */
  async purgeOlderThan(retentionMs: number): Promise<{ deliveries: number }> {
    const t = this.tables;
    const deliveries = await this.prisma.$executeRaw`
      DELETE FROM ${t.delivery} WHERE status IN ('delivered', 'failed') AND created_at < now() - ${ms(retentionMs)}`;
    await this.prisma.$executeRaw`DELETE FROM ${t.inbox} WHERE processed_at < now() - ${ms(retentionMs)}`;
    return { deliveries };
  }
}

function describeDuration(value: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, unit] of units) {
    if (value >= size && value % size === 0) return `${value / size} ${unit}${value / size === 1 ? '' : 's'}`;
  }
  return `${value} ms`;
}
