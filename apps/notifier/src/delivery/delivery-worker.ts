import type { Logger } from 'pino';
import type { ClaimedDelivery, DeliveryRepository } from './delivery.repository';
import type { DeliveryMetrics } from './delivery-metrics';
import { isSuccess, type AttemptOutcome, type RetryPolicy } from './retry-policy';
import { signedWebhook } from './webhook-message';
import type { WebhookSender } from './webhook-sender';

/**
 * Time to record an attempt's outcome after its deadline. A claim lasts the attempt timeout plus
 * this; only a worker that died mid-attempt ever lets a claim run out.
 */
const LEASE_MARGIN_MS = 5_000;

export interface DeliveryWorkerOptions {
  repository: DeliveryRepository;
  sender: WebhookSender;
  policy: RetryPolicy;
  metrics: DeliveryMetrics;
  logger: Logger;
  timeoutMs: number;
  /** Attempts in flight at once in this process. */
  concurrency: number;
  pollIntervalMs: number;
  disableAfterMs: number;
}

/**
 * Sends due deliveries. The schedule lives in the database (DeliveryRepository), so any number of
 * processes can run a worker and a restart loses nothing; this loop only claims what is due,
 * polled every `pollIntervalMs` and at once when woken (a new event stored, an attempt finished:
 * the next event of that request may now be due).
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private timer?: NodeJS.Timeout;
  private claiming?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(private readonly options: DeliveryWorkerOptions) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.options.pollIntervalMs);
    this.timer.unref();
    this.wake();
  }

  /** Looks for due deliveries now (coalesced with a look already under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claim()
      .catch((error: unknown) => this.options.logger.warn({ err: String(error) }, 'claiming due deliveries failed; will retry'))
      .finally(() => {
        this.claiming = undefined;
        if (this.again) {
          this.again = false;
          this.wake();
        }
      });
  }

  /** Stops claiming and waits for the attempts in flight (each bounded by the attempt timeout). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.claiming;
    await Promise.allSettled([...this.inFlight]);
  }

  private async claim(): Promise<void> {
    const free = this.options.concurrency - this.inFlight.size;
    if (free <= 0) return;
    const claimed = await this.options.repository.claimDue(free, this.options.timeoutMs + LEASE_MARGIN_MS);
    for (const delivery of claimed) {
      const work: Promise<void> = this.deliver(delivery)
        .catch((error: unknown) =>
          // The claim runs out and the delivery is attempted again: at least once, never lost.
          this.options.logger.error({ eventId: delivery.eventId, err: String(error) }, 'recording a delivery attempt failed'),
        )
        .finally(() => {
          this.inFlight.delete(work);
          this.wake();
        });
      this.inFlight.add(work);
    }
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { sender, policy, repository, metrics, logger } = this.options;
    const attemptedAt = new Date();
    const request = signedWebhook(
      { id: delivery.eventId, type: delivery.eventType, occurredAt: delivery.occurredAt, sequence: delivery.sequence, data: delivery.data },
      delivery.secret,
      attemptedAt,
    );
    metrics.attempted.inc();
    const { outcome, durationMs } = await sender.send(delivery.callbackUrl, request);
    const attempt = delivery.attemptCount + 1;
    const step = policy.nextStep(outcome, attempt);
    const { disabledReason } = await repository.recordAttempt(delivery, { attemptedAt, durationMs, ...describe(outcome) }, step, this.options.disableAfterMs);

    const context = { eventId: delivery.eventId, subscriptionId: delivery.subscriptionId, attempt, durationMs, ...summary(outcome) };
    if (step.kind === 'delivered') {
      metrics.succeeded.inc();
      logger.info(context, 'webhook delivered');
    } else {
      metrics.failed.inc({ reason: outcome.kind === 'answered' ? 'status' : outcome.reason });
      if (step.kind === 'retry') logger.info({ ...context, retryInMs: step.delayMs }, 'webhook attempt failed; will retry');
      else if (step.kind === 'exhausted') logger.warn(context, 'webhook attempt failed; retry schedule exhausted, event given up');
      else logger.warn(context, 'webhook attempt failed');
    }
    if (disabledReason) {
      metrics.subscriptionsDisabled.inc();
      logger.warn({ subscriptionId: delivery.subscriptionId, reason: disabledReason }, 'subscription disabled');
    }
  }
}

/** The attempt row: status code and a short reason a referrer can act on (shown in the delivery log). */
function describe(outcome: AttemptOutcome): { statusCode: number | null; error: string | null } {
  if (outcome.kind === 'no-answer') return { statusCode: null, error: outcome.error };
  const { statusCode } = outcome;
  if (isSuccess(statusCode)) return { statusCode, error: null };
  if (statusCode >= 300 && statusCode < 400) return { statusCode, error: 'redirects are not followed' };
  return { statusCode, error: `the receiver answered HTTP ${statusCode}` };
}

/** For logs: status code or reason only, never a body. */
function summary(outcome: AttemptOutcome): Record<string, unknown> {
  return outcome.kind === 'answered' ? { statusCode: outcome.statusCode } : { reason: outcome.reason, error: outcome.error };
}
