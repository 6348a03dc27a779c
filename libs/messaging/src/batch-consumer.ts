import type { Channel, ConsumeMessage } from 'amqplib';
import { context, ROOT_CONTEXT, SpanKind, trace, type Context, type Span } from '@opentelemetry/api';
import type { Logger } from 'pino';
import pRetry from 'p-retry';
import type { ConsumedMessage, HandlerOutcome, UnreadableDelivery } from './consumed-message';
import { Settlement } from './settlement';
import { endSpan, messagingTracer } from './trace-context';

/**
 * A queue's handler: it gets what the broker has delivered as one unit of work (one transaction,
 * set-based statements, one commit) and returns one outcome per message, in the same order.
 * Messages of one batch arrive in queue order; a handler that has several messages about the same
 * thing (one request) applies them in that order.
 */
export type BatchHandler = (messages: readonly ConsumedMessage[]) => Promise<readonly HandlerOutcome[]>;

export interface BatchSettings {
  /** Most messages one unit of work takes; the rest wait for the next. */
  maxBatch: number;
  /**
   * How long the first message of an idle consumer waits for others to join it (ms). Under load
   * batches form by themselves: what arrives while one runs is the next. 0: only what arrived in
   * the same turn of the event loop.
   */
  windowMs: number;
  /** In-process tries again of a message that fails alone (see `runAlone`). */
  handlerRetry: { retries: number; minTimeoutMs: number; maxTimeoutMs: number };
  /** Pause before a 'retry' outcome returns to the queue, times the delivery count (at most 5 s). */
  retryBackoffMs: number;
}

/**
 * A delivery and what was read from it, with the message's span (ended when it is settled) and the
 * context that holds it; `problem` when it is unreadable.
 */
export type ParsedDelivery = Pending | ({ delivery: ConsumeMessage } & UnreadableDelivery);

interface Pending {
  delivery: ConsumeMessage;
  message: ConsumedMessage;
  span: Span;
  context: Context;
}

export interface BatchConsumerDependencies {
  queue: string;
  channel: Channel;
  handler: BatchHandler;
  settings: BatchSettings;
  logger: Logger;
  /** False once the channel is gone (reconnection): its delivery tags cannot be settled any more. */
  isCurrentChannel(): boolean;
  /** True while the service stops: failures are not tried again in-process. */
  isStopping(): boolean;
  onSettled(outcome: HandlerOutcome, message: { routingKey: string }): void;
  onBatch(size: number): void;
}

/**
 * The consumer of one queue on one channel. Deliveries are collected into batches (up to
 * `maxBatch`, waiting at most `windowMs` for the first one's company); one batch runs at a time, so
 * the messages of a queue are handled in the order the broker delivered them, and work on one
 * request stays serialised. After the batch's commit its messages are settled (Settlement), acks
 * coalesced into one multiple-ack where no earlier delivery is still open.
 *
 * A batch whose handler throws is split: each message runs alone, in order, so that a message
 * that cannot succeed never takes its neighbours down with it (they commit, it goes back to the
 * queue and eventually to the dead-letter queue). A message that fails alone while others of its
 * batch succeeded is a poison candidate and returns to the queue at once (the delivery limit
 * counts it); when every message fails, a dependency is down, and each is tried again in-process
 * with backoff, so a database restart does not use up the delivery limit of good messages.
 */
export class BatchConsumer {
  private readonly waiting: Pending[] = [];
  private readonly settlement: Settlement;
  private running?: Promise<void>;
  private timer?: NodeJS.Timeout | NodeJS.Immediate;
  /** Set by `finish`: no further batch is started. */
  private finishing = false;

  constructor(private readonly deps: BatchConsumerDependencies) {
    this.settlement = new Settlement({
      channel: deps.channel,
      logger: deps.logger,
      retryBackoffMs: deps.settings.retryBackoffMs,
      isCurrentChannel: () => deps.isCurrentChannel(),
      onSettled: (outcome, message) => deps.onSettled(outcome, message),
    });
  }

  /** Takes one delivery from the channel. */
  accept(parsed: ParsedDelivery): void {
    const { delivery } = parsed;
    this.settlement.opened(delivery);
    if ('problem' in parsed) {
      // One line per message, naming its type and id when it has them (a type or version this
      // release does not know, a payload its schema refuses), never its content.
      const { problem, messageType, messageId } = parsed;
      this.deps.logger.error(
        { queue: this.deps.queue, routingKey: delivery.fields.routingKey, ...(messageType ? { messageType, messageId } : {}), problem },
        'unreadable message dead-lettered',
      );
      this.settlement.settle(delivery, 'dead-letter');
      return;
    }
    this.waiting.push(parsed);
    this.schedule();
  }

  /** Resolves once every delivery taken so far has been handled (used when stopping). */
  async drain(): Promise<void> {
    this.clearTimer();
    while (this.running || this.waiting.length > 0) {
      if (!this.running) this.startBatch();
      await this.running;
    }
  }

  /**
   * Resolves once the batch under way has been handled and settled, and starts no further one (the
   * stop of an ordered consumer): what waits stays unsettled, and the broker returns it to the queue,
   * in order, when the channel closes.
   */
  async finish(): Promise<void> {
    this.finishing = true;
    this.clearTimer();
    await this.running;
  }

  private schedule(): void {
    if (this.running || this.finishing) return; // taken up when the running batch ends
    if (this.waiting.length >= this.deps.settings.maxBatch) {
      this.clearTimer();
      this.startBatch();
      return;
    }
    if (this.timer) return;
    const start = () => {
      this.timer = undefined;
      this.startBatch();
    };
    const { windowMs } = this.deps.settings;
    this.timer = windowMs > 0 ? setTimeout(start, windowMs) : setImmediate(start);
  }

  private clearTimer(): void {
    if (!this.timer) return;
    clearTimeout(this.timer as NodeJS.Timeout);
    clearImmediate(this.timer as NodeJS.Immediate);
    this.timer = undefined;
  }

  private startBatch(): void {
    if (this.running || this.finishing || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.deps.settings.maxBatch);
    this.deps.onBatch(batch.length);
    this.running = this.run(batch).finally(() => {
      this.running = undefined;
      // What arrived meanwhile has waited long enough.
      if (this.waiting.length > 0) this.startBatch();
    });
  }

  private async run(batch: Pending[]): Promise<void> {
    if (batch.length > 1) {
      const outcomes = await this.tryBatch(batch);
      if (outcomes) {
        this.settlement.settleAll(batch, outcomes, endMessageSpan);
        return;
      }
    }
    await this.runEachAlone(batch);
  }

  /**
   * The whole batch as one unit of work; undefined when the handler failed. Its work is a span of its
   * own, linked to the span of each of its messages (each in the trace its message continues).
   */
  private async tryBatch(batch: Pending[]): Promise<readonly HandlerOutcome[] | undefined> {
    const span = messagingTracer().startSpan(
      `process batch ${this.deps.queue}`,
      {
        kind: SpanKind.INTERNAL,
        links: batch.map((pending) => ({ context: pending.span.spanContext() })),
        attributes: { 'messaging.destination.name': this.deps.queue, 'messaging.batch.message_count': batch.length },
      },
      ROOT_CONTEXT,
    );
    try {
      const outcomes = await context.with(trace.setSpan(ROOT_CONTEXT, span), () => this.deps.handler(batch.map((pending) => pending.message)));
      if (outcomes.length !== batch.length) throw new Error(`the handler returned ${outcomes.length} outcomes for ${batch.length} messages`);
      endSpan(span);
      return outcomes;
    } catch (error) {
      endSpan(span, error);
      this.deps.logger.warn({ queue: this.deps.queue, size: batch.length, err: errorText(error) }, 'batch failed; each of its messages is tried alone');
      return undefined;
    }
  }

  private async runEachAlone(batch: Pending[]): Promise<void> {
    const failed: Pending[] = [];
    let succeeded = 0;
    for (const pending of batch) {
      try {
        this.settlePending(pending, await this.handleAlone(pending));
        succeeded++;
      } catch (error) {
        pending.message.logger.warn({ err: errorText(error) }, 'handler failed');
        failed.push(pending);
      }
    }
    for (const pending of failed) {
      // Others of the batch went through, so the dependencies are up: this one is likely poison.
      const outcome = succeeded > 0 ? this.giveBack(pending, 'failed while the rest of its batch succeeded') : await this.retryAlone(pending);
      this.settlePending(pending, outcome);
    }
  }

  /** One message as its own unit of work, within its own span. */
  private async handleAlone(pending: Pending): Promise<HandlerOutcome> {
    const [outcome] = await context.with(pending.context, () => this.deps.handler([pending.message]));
    if (!outcome) throw new Error('the handler returned no outcome');
    return outcome;
  }

  /** Tries a message alone again with backoff; 'retry' (back to the queue) when it keeps failing. */
  private async retryAlone(pending: Pending): Promise<HandlerOutcome> {
    const { retries, minTimeoutMs, maxTimeoutMs } = this.deps.settings.handlerRetry;
    const { logger } = pending.message;
    try {
      return await pRetry(() => this.handleAlone(pending), {
        retries,
        minTimeout: minTimeoutMs,
        maxTimeout: maxTimeoutMs,
        randomize: true,
        // Stopping: a failure is not tried again (the message returns to the queue); a success still counts.
        shouldRetry: () => !this.deps.isStopping(),
        onFailedAttempt: ({ error, attemptNumber, retriesLeft }) => {
          if (retriesLeft > 0) logger.warn({ err: error.message, attemptNumber, retriesLeft }, 'handler failed; trying again');
        },
      });
    } catch (error) {
      return this.giveBack(pending, errorText(error));
    }
  }

  /** Logs the failed delivery (one error line per delivery, with its count) and returns 'retry'. */
  private giveBack(pending: Pending, reason: string): HandlerOutcome {
    pending.message.logger.error({ err: reason, previousDeliveries: pending.message.previousDeliveries }, 'handler failed; message goes back to the queue');
    return 'retry';
  }

  private settlePending(pending: Pending, outcome: HandlerOutcome): void {
    this.settlement.settle(pending.delivery, outcome);
    endMessageSpan(pending, outcome);
  }
}

/** A message's span ends when it is settled, naming the outcome. */
function endMessageSpan(pending: Pending, outcome: HandlerOutcome): void {
  pending.span.setAttribute('bedrequest.message.outcome', outcome);
  endSpan(pending.span, outcome === 'ack' ? undefined : `message ${outcome === 'retry' ? 'goes back to the queue' : 'dead-lettered'}`);
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
