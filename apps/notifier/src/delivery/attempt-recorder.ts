import { context, ROOT_CONTEXT, SpanStatusCode, trace, type SpanContext } from '@opentelemetry/api';
import type { Logger } from 'pino';
import { Batcher } from './batcher';
import type { ClaimedDelivery } from './claimed-delivery';
import type { DeliveryRepository } from './delivery.repository';
import type { DeliveryMetrics } from './delivery-metrics';
import { isSuccess, type AttemptOutcome, type NextStep } from './retry-policy';

/**
 * How long a finished attempt waits for others to be recorded with it when the recorder is idle.
 * 2 ms is short next to the retry delays (5 s and up) and to an attempt's round trip, and at the
 * target of 3,000 attempts/s gathers about six of them; under load batches form by themselves
 * while the previous one is written.
 */
const RECORD_WINDOW_MS = 2;

/** An attempt that has its answer (or none) and the step the retry policy chose after it. */
export interface FinishedDelivery {
  delivery: ClaimedDelivery;
  attemptedAt: Date;
  outcome: AttemptOutcome;
  durationMs: number;
  step: NextStep;
  /** The attempt's span: the span that records it links to it. */
  span: SpanContext;
}

export interface AttemptRecorderOptions {
  repository: Pick<DeliveryRepository, 'recordAttempts'>;
  metrics: DeliveryMetrics;
  logger: Logger;
  /** Most attempts one statement records: the worker's slots, so that one batch can take every attempt in flight. */
  maxBatch: number;
  disableAfterMs: number;
}

/**
 * Records finished attempts in batches (one statement each, see Batcher and
 * DeliveryRepository.recordAttempts), then counts and logs them (ids and status codes only).
 */
export class AttemptRecorder {
  private readonly batcher: Batcher<FinishedDelivery>;

  constructor(private readonly options: AttemptRecorderOptions) {
    this.batcher = new Batcher((finished) => this.record(finished), { maxBatch: options.maxBatch, windowMs: RECORD_WINDOW_MS });
  }

  /** Resolves once the attempt's batch was recorded; rejects with the statement's error. */
  add(finished: FinishedDelivery): Promise<void> {
    return this.batcher.add(finished);
  }

  /** One batch, as a span (`record webhook attempts`) of no trace, linked to each attempt's span. */
  private async record(finished: FinishedDelivery[]): Promise<void> {
    const span = trace
      .getTracer('@bedrequest/notifier')
      .startSpan(
        'record webhook attempts',
        { links: finished.map((entry) => ({ context: entry.span })), attributes: { 'bedrequest.webhook.attempts': finished.length } },
        ROOT_CONTEXT,
      );
    try {
      await context.with(trace.setSpan(ROOT_CONTEXT, span), () => this.recordTraced(finished));
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: String(error) });
      throw error;
    } finally {
      span.end();
    }
  }

  private async recordTraced(finished: FinishedDelivery[]): Promise<void> {
    const { repository, metrics, logger } = this.options;
    const disabled = await repository.recordAttempts(
      finished.map(({ delivery, attemptedAt, durationMs, outcome, step }) => ({
        claim: delivery,
        attempt: { attemptedAt, durationMs, ...describe(outcome) },
        step,
      })),
      this.options.disableAfterMs,
    );
    let delivered = 0;
    for (const { delivery, outcome, durationMs, step } of finished) {
      const context = {
        eventId: delivery.eventId,
        subscriptionId: delivery.subscriptionId,
        attempt: delivery.attemptCount + 1,
        durationMs,
        ...summary(outcome),
      };
      if (step.kind === 'delivered') {
        delivered += 1;
        metrics.succeeded.inc();
        logger.debug(context, 'webhook delivered');
        continue;
      }
      metrics.failed.inc({ reason: outcome.kind === 'answered' ? 'status' : outcome.reason });
      if (step.kind === 'retry') logger.info({ ...context, retryInMs: step.delayMs }, 'webhook attempt failed; will retry');
      else if (step.kind === 'exhausted') logger.warn(context, 'webhook attempt failed; retry schedule exhausted, event given up');
      else logger.warn(context, 'webhook attempt failed');
    }
    logger.info({ attempts: finished.length, delivered, failed: finished.length - delivered }, 'webhook attempts recorded');
    for (const { subscriptionId, reason } of disabled) {
      metrics.subscriptionsDisabled.inc();
      logger.warn({ subscriptionId, reason }, 'subscription disabled');
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
