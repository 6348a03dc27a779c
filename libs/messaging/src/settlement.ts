import type { Channel, ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import type { HandlerOutcome } from './consumed-message';

export interface SettlementDependencies {
  channel: Channel;
  logger: Logger;
  /** Pause before a 'retry' outcome returns to the queue, times the delivery count (at most 5 s). */
  retryBackoffMs: number;
  /** False once the channel is gone (reconnection): its delivery tags cannot be settled any more. */
  isCurrentChannel(): boolean;
  onSettled(outcome: HandlerOutcome, message: { routingKey: string }): void;
}

/**
 * Settles one channel's deliveries with the broker once their outcome is known: 'ack' acknowledges,
 * 'dead-letter' rejects without requeue (to the dead-letter queue), 'retry' returns the message to
 * the queue after a short backoff. It knows which delivery tags are still open, so that the acks of
 * a batch go as one multiple-ack where no earlier delivery is still open.
 */
export class Settlement {
  /** Delivery tags delivered and not settled yet. */
  private readonly open = new Set<number>();

  constructor(private readonly deps: SettlementDependencies) {}

  /** A delivery taken from the channel: open until it is settled. */
  opened(delivery: ConsumeMessage): void {
    this.open.add(delivery.fields.deliveryTag);
  }

  /**
   * Settles a batch's deliveries, each with its outcome (a missing one: 'retry'), in order; `settled`
   * follows each. The acks go together at the end (see ackTogether).
   */
  settleAll<T extends { delivery: ConsumeMessage }>(
    batch: readonly T[],
    outcomes: readonly HandlerOutcome[],
    settled: (entry: T, outcome: HandlerOutcome) => void,
  ): void {
    const acks: ConsumeMessage[] = [];
    batch.forEach((entry, index) => {
      const outcome = outcomes[index] ?? 'retry';
      if (outcome === 'ack') {
        acks.push(entry.delivery);
        this.deps.onSettled('ack', { routingKey: entry.delivery.fields.routingKey });
      } else this.settle(entry.delivery, outcome);
      settled(entry, outcome);
    });
    this.ackTogether(acks);
  }

  settle(delivery: ConsumeMessage, outcome: HandlerOutcome): void {
    if (outcome === 'ack') {
      this.deps.onSettled('ack', { routingKey: delivery.fields.routingKey });
      this.ackTogether([delivery]);
      return;
    }
    this.deps.onSettled(outcome, { routingKey: delivery.fields.routingKey });
    if (!this.channelUsable()) return;
    const tag = delivery.fields.deliveryTag;
    try {
      if (outcome === 'dead-letter') {
        this.deps.channel.nack(delivery, false, false);
        this.open.delete(tag);
        return;
      }
      // Back off a little so that a failing dependency is not hammered; the tag stays open meanwhile.
      const previous = Number(delivery.properties.headers?.['x-delivery-count'] ?? 0);
      const backoff = Math.min(this.deps.retryBackoffMs * (previous + 1), 5_000);
      const timer = setTimeout(() => {
        this.open.delete(tag);
        try {
          if (this.channelUsable()) this.deps.channel.nack(delivery, false, true);
        } catch {
          // channel closed meanwhile: the broker redelivers the unacked message anyway
        }
      }, backoff);
      timer.unref();
    } catch (error) {
      this.deps.logger.warn({ err: errorText(error) }, 'could not settle message; the broker will redeliver it');
    }
  }

  /**
   * One `basic.ack` with `multiple` for the highest tag when every open delivery up to it is among
   * `acks` (the usual case); otherwise one ack each.
   */
  private ackTogether(acks: ConsumeMessage[]): void {
    if (acks.length === 0 || !this.channelUsable()) return;
    const tags = new Set(acks.map((delivery) => delivery.fields.deliveryTag));
    const highest = acks.reduce((top, delivery) => (delivery.fields.deliveryTag > top.fields.deliveryTag ? delivery : top));
    const coversOthers = [...this.open].some((tag) => tag <= highest.fields.deliveryTag && !tags.has(tag));
    try {
      if (coversOthers) for (const delivery of acks) this.deps.channel.ack(delivery);
      else this.deps.channel.ack(highest, true);
    } catch (error) {
      this.deps.logger.warn({ err: errorText(error) }, 'could not acknowledge; the broker will redeliver');
    }
    for (const tag of tags) this.open.delete(tag);
  }

  /**
   * A delivery tag belongs to its channel. After a reconnection the old channel is gone and the
   * broker has already put the message back; settling it on the new channel would be an error.
   */
  private channelUsable(): boolean {
    return this.deps.isCurrentChannel();
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
