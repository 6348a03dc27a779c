import { context, SpanKind, trace } from '@opentelemetry/api';
import type { Channel } from 'amqplib';
import type { Logger } from 'pino';
import type { Envelope, MessageDefinition } from '@bedrequest/contracts';
import { readDelivery } from './consumed-message';
import { contextFrom, endSpan, messagingTracer } from './trace-context';

export interface Subscription {
  routingKeys: readonly string[];
  handler: (message: { envelope: Envelope; definition: MessageDefinition }) => void;
  /** Called after every (re)subscription: what was published while unsubscribed is not delivered. */
  onSubscribed?: () => void;
}

/**
 * Subscriptions to broadcasts (e.g. "the clinic registry changed"), for every process that listens:
 * each is an exclusive, server-named queue of the connection bound to its routing keys, without
 * acks. Nothing is kept while the process is disconnected; they are subscribed again on the channel
 * of every reconnection.
 */
export class BroadcastSubscriptions {
  private readonly subscriptions: Subscription[] = [];

  constructor(private readonly options: { exchange: string; catalog: ReadonlyMap<string, MessageDefinition>; logger: Logger }) {}

  /** Registers a subscription; it starts on `channel` now when there is one. */
  async add(subscription: Subscription, channel: Channel | undefined): Promise<void> {
    this.subscriptions.push(subscription);
    if (channel) await this.start(channel, subscription);
  }

  /** Subscribes again on the channel of a new connection. */
  async startAll(channel: Channel): Promise<void> {
    for (const subscription of this.subscriptions) await this.start(channel, subscription);
  }

  private async start(channel: Channel, subscription: Subscription): Promise<void> {
    const { exchange, catalog, logger } = this.options;
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
    for (const routingKey of subscription.routingKeys) await channel.bindQueue(queue, exchange, routingKey);
    await channel.consume(
      queue,
      (delivery) => {
        if (!delivery) return;
        const parsed = readDelivery(delivery, catalog);
        if ('problem' in parsed) {
          logger.error({ problem: parsed.problem }, 'unreadable broadcast ignored');
          return;
        }
        const parent = contextFrom(delivery.properties.headers);
        const span = messagingTracer().startSpan(
          `process ${parsed.definition.routingKey}`,
          {
            kind: SpanKind.CONSUMER,
            attributes: { 'messaging.system': 'rabbitmq', 'messaging.operation.type': 'process', 'messaging.message.id': parsed.envelope.id },
          },
          parent,
        );
        try {
          context.with(trace.setSpan(parent, span), () => subscription.handler(parsed));
          endSpan(span);
        } catch (error) {
          endSpan(span, error);
          logger.error({ err: error instanceof Error ? error.message : String(error) }, 'broadcast handler failed');
        }
      },
      { noAck: true },
    );
    subscription.onSubscribed?.();
  }
}
