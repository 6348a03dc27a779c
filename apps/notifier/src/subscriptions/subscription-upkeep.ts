import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import type { HeartbeatWebhook } from '@bedrequest/contracts';
import { PeriodicRun } from '@bedrequest/messaging';
import { previousSecretOf } from '../delivery/claim-rule';
import { isSuccess } from '../delivery/retry-policy';
import { signedBody } from '../delivery/webhook-message';
import type { WebhookSender } from '../delivery/webhook-sender';
import type { NotifierDatabase, NotifierTables } from '../persistence/database';
import type { ProtectedFields } from '../persistence/sealed-fields';
import type { SubscriptionRepository } from './subscription.repository';

/** Heartbeats claimed per statement; a run claims on until fewer come back. */
const BATCH = 100;

/** A subscription whose heartbeat this process claimed, its secrets opened. */
export interface DueHeartbeat {
  subscriptionId: string;
  eventType: string;
  callbackUrl: string;
  lastSequence: number;
  secrets: string[];
}

/**
 * Claims the heartbeats due now, in one statement that also moves each subscription's due time on:
 * rows are taken with FOR NO KEY UPDATE SKIP LOCKED and updated before commit, so a second notifier
 * either passes over a row being claimed or finds it no longer due. A subscription with a delivery
 * within its interval sends nothing; its due time becomes that delivery's time plus the interval.
 * The latest delivery is the delivered row of the highest sequence (the subscription's key index).
 */
export async function claimDueHeartbeats(prisma: NotifierDatabase, tables: NotifierTables, fields: ProtectedFields, limit: number): Promise<DueHeartbeat[]> {
  const t = tables;
  const rows = await prisma.$queryRaw<
    {
      id: string;
      event_type: string;
      callback_url: string;
      last_sequence: number;
      sealed_secret: Uint8Array;
      sealed_previous_secret: Uint8Array | null;
    }[]
  >`
    WITH due AS (
      SELECT s.id FROM ${t.subscription} s
       WHERE s.heartbeat_seconds IS NOT NULL AND s.heartbeat_due_at <= now() AND s.status = 'active'
       ORDER BY s.heartbeat_due_at
       LIMIT ${limit}
         FOR NO KEY UPDATE SKIP LOCKED
    ),
    judged AS (
      SELECT due.id, l.delivered_at
        FROM due LEFT JOIN LATERAL (
          SELECT d.delivered_at FROM ${t.delivery} d
           WHERE d.subscription_id = due.id AND d.status = 'delivered'
           ORDER BY d.sequence DESC LIMIT 1) l ON true
    ),
    moved AS (
      UPDATE ${t.subscription} s
         SET heartbeat_due_at = CASE WHEN j.delivered_at > now() - s.heartbeat_seconds * interval '1 second' THEN j.delivered_at ELSE now() END
                                + s.heartbeat_seconds * interval '1 second'
        FROM judged j
       WHERE s.id = j.id
      RETURNING s.id, s.event_type, s.callback_url, s.last_sequence, s.sealed_secret, ${previousSecretOf('s')} AS sealed_previous_secret,
                j.delivered_at IS NULL OR j.delivered_at <= now() - s.heartbeat_seconds * interval '1 second' AS quiet
    )
    SELECT id::text AS id, event_type, callback_url, last_sequence, sealed_secret, sealed_previous_secret FROM moved WHERE quiet`;
  return Promise.all(
    rows.map(async (row) => ({
      subscriptionId: row.id,
      eventType: row.event_type,
      callbackUrl: row.callback_url,
      lastSequence: row.last_sequence,
      secrets: [
        await fields.openSecret(row.id, row.sealed_secret),
        ...(row.sealed_previous_secret ? [await fields.openPreviousSecret(row.id, row.sealed_previous_secret)] : []),
      ],
    })),
  );
}

export interface SubscriptionUpkeepOptions {
  prisma: NotifierDatabase;
  tables: NotifierTables;
  fields: ProtectedFields;
  subscriptions: Pick<SubscriptionRepository, 'deleteExpiredPreviousSecrets'>;
  sender: Pick<WebhookSender, 'send'>;
  registry: Registry;
  logger: Logger;
  /** WEBHOOK_HEARTBEAT_CHECK_INTERVAL. */
  intervalMs: number;
}

/**
 * The subscriptions' periodic work, in every notifier process (docs/webhooks.md, "Heartbeats" and
 * "Rotating the secret"): sends the heartbeats due (claimDueHeartbeats: one process per heartbeat)
 * and deletes the previous secrets whose overlap has ended. A heartbeat is one attempt, not retried
 * and not recorded in the delivery log: the next one comes an interval later, and a receiver that
 * missed one learns nothing it would not learn from the next.
 */
export class SubscriptionUpkeep {
  private readonly job: PeriodicRun<number>;
  private readonly sent: Counter<'outcome'>;

  constructor(private readonly options: SubscriptionUpkeepOptions) {
    this.sent = new Counter({
      name: 'webhook_heartbeats_total',
      help: 'Heartbeats sent, by outcome (delivered: a 2xx answer; failed: anything else)',
      labelNames: ['outcome'],
      registers: [options.registry],
    });
    this.job = new PeriodicRun({
      work: () => this.runOnce(),
      idle: 0,
      intervalMs: options.intervalMs,
      logger: options.logger,
      failureMessage: 'sending heartbeats or deleting expired secrets failed; will retry',
    });
  }

  start(): void {
    this.job.start();
  }

  stop(): Promise<void> {
    return this.job.stop();
  }

  /** One run now (tests): resolves with the heartbeats sent. */
  run(): Promise<number> {
    return this.job.run();
  }

  private async runOnce(): Promise<number> {
    const { prisma, tables, fields, subscriptions, logger } = this.options;
    const deleted = await subscriptions.deleteExpiredPreviousSecrets();
    if (deleted > 0) logger.info({ subscriptions: deleted }, 'previous signing secrets deleted after their overlap');
    let sent = 0;
    for (;;) {
      const due = await claimDueHeartbeats(prisma, tables, fields, BATCH);
      await Promise.all(due.map((heartbeat) => this.send(heartbeat)));
      sent += due.length;
      if (due.length < BATCH) return sent;
    }
  }

  private async send(heartbeat: DueHeartbeat): Promise<void> {
    const now = new Date();
    const body: HeartbeatWebhook = {
      id: randomUUID(),
      type: 'Heartbeat',
      timestamp: now.toISOString(),
      data: { subscriptionId: heartbeat.subscriptionId, eventType: heartbeat.eventType, lastSequence: heartbeat.lastSequence },
    };
    const request = signedBody(body.id, JSON.stringify(body), heartbeat.secrets, now);
    const { outcome } = await this.options.sender.send(heartbeat.callbackUrl, request);
    const delivered = outcome.kind === 'answered' && isSuccess(outcome.statusCode);
    this.sent.inc({ outcome: delivered ? 'delivered' : 'failed' });
    const context = {
      subscriptionId: heartbeat.subscriptionId,
      ...(outcome.kind === 'answered' ? { statusCode: outcome.statusCode } : { reason: outcome.reason }),
    };
    if (delivered) this.options.logger.debug(context, 'heartbeat delivered');
    else this.options.logger.info(context, 'heartbeat not delivered; the next one follows after the interval');
  }
}
