import type { Channel, ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import { SpanKind, trace } from '@opentelemetry/api';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { MessageDefinition } from '@bedrequest/contracts';
import { withTrace } from '@bedrequest/observability';
import { BatchConsumer, type BatchHandler, type BatchSettings, type ParsedDelivery } from './batch-consumer';
import { readDelivery, type ConsumedMessage } from './consumed-message';
import { settledWithin } from './settled-within';
import { contextFrom, messagingTracer, traceContextOf } from './trace-context';

export interface QueueConsumersOptions {
  catalog: ReadonlyMap<string, MessageDefinition>;
  logger: Logger;
  registers: Registry[];
  settings: BatchSettings;
  /** False once `channel` is gone (reconnection): its delivery tags cannot be settled any more. */
  isCurrentChannel(channel: Channel): boolean;
  /** True while the service stops: failures are not tried again in-process. */
  isStopping(): boolean;
  /** Answers a request (see RequestReply.reply). */
  reply(replyTo: string, requestId: string, definition: MessageDefinition, payload: unknown, correlationId: string): void;
}

interface Consumer {
  queue: string;
  handler: BatchHandler;
  /** A queue of a single active consumer: its order must hold when the consumer stops (see `cancel`). */
  ordered: boolean;
  tag?: string;
  channel?: Channel;
  batches?: BatchConsumer;
}

/**
 * The consumers of the service's durable queues, with manual acks: each queue's deliveries are read
 * (an unreadable one is dead-lettered at once) and handed to a BatchConsumer, which batches,
 * handles, retries and settles them. Consumers are started again on the channel of every
 * reconnection.
 */
export class QueueConsumers {
  private readonly consumers: Consumer[] = [];
  private readonly consumed: Counter<'queue' | 'routing_key' | 'outcome'>;
  private readonly batchSizes: Histogram<'queue'>;

  constructor(private readonly options: QueueConsumersOptions) {
    this.consumed = new Counter({
      name: 'messages_consumed_total',
      help: 'Messages consumed, by queue, routing key and handler outcome',
      labelNames: ['queue', 'routing_key', 'outcome'],
      registers: options.registers,
    });
    this.batchSizes = new Histogram({
      name: 'message_batch_size',
      help: 'Messages handled as one unit of work, by queue',
      labelNames: ['queue'],
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers: options.registers,
    });
  }

  get queues(): string[] {
    return this.consumers.map((consumer) => consumer.queue);
  }

  /** Registers the consumer of `queue`; it starts on `channel` now when there is one. */
  async add(queue: string, handler: BatchHandler, channel: Channel | undefined, ordered: boolean): Promise<void> {
    const consumer: Consumer = { queue, handler, ordered };
    this.consumers.push(consumer);
    if (channel) await this.start(channel, consumer);
  }

  /** Starts every consumer on the channel of a new connection. */
  async startAll(channel: Channel): Promise<void> {
    for (const consumer of this.consumers) await this.start(channel, consumer);
  }

  /**
   * No new deliveries to the consumers on `channel`, but for the ordered ones. Cancelling one of
   * those would hand the queue to the next consumer at once, while deliveries the broker sent before
   * its cancel-ok were still on their way: they came back to the queue after the next consumer had
   * taken later messages (broker.int.spec.ts: 3 hand-overs of 12 on a loaded machine). An ordered consumer stops
   * when its channel closes instead (`hasOrdered`), which returns what it holds before the queue
   * activates the next one.
   */
  async cancel(channel: Channel): Promise<void> {
    for (const consumer of this.consumers) {
      if (consumer.tag && consumer.channel === channel && !consumer.ordered) await channel.cancel(consumer.tag).catch(() => undefined);
    }
  }

  /**
   * Waits, at most `timeoutMs`, until what the consumers took has been handled; of an ordered
   * consumer only its batch under way (the rest goes back to the queue when the channel closes).
   */
  async drain(timeoutMs: number): Promise<void> {
    await settledWithin(
      this.consumers.flatMap((consumer) => (consumer.batches ? [consumer.ordered ? consumer.batches.finish() : consumer.batches.drain()] : [])),
      timeoutMs,
    );
  }

  get hasOrdered(): boolean {
    return this.consumers.some((consumer) => consumer.ordered);
  }

  private async start(channel: Channel, consumer: Consumer): Promise<void> {
    const { queue } = consumer;
    const batches = new BatchConsumer({
      queue,
      channel,
      handler: consumer.handler,
      settings: this.options.settings,
      logger: this.options.logger,
      isCurrentChannel: () => this.options.isCurrentChannel(channel),
      isStopping: () => this.options.isStopping(),
      onSettled: (outcome, { routingKey }) => this.consumed.inc({ queue, routing_key: routingKey, outcome }),
      onBatch: (size) => this.batchSizes.observe({ queue }, size),
    });
    const reply = await channel.consume(
      queue,
      (delivery) => {
        if (!delivery) return; // the broker cancelled the consumer (queue deleted)
        batches.accept(this.read(queue, delivery));
      },
      { noAck: false },
    );
    consumer.tag = reply.consumerTag;
    consumer.channel = channel;
    consumer.batches = batches;
  }

  /**
   * The delivery as its handler sees it, or the problem that makes it unreadable. A readable one
   * gets its own span, a child of the trace context its headers carry; it ends when the message is
   * settled (BatchConsumer).
   */
  private read(queue: string, delivery: ConsumeMessage): ParsedDelivery {
    const parsed = readDelivery(delivery, this.options.catalog);
    if ('problem' in parsed) return { delivery, ...parsed };
    const { envelope, definition } = parsed;
    const parent = contextFrom(delivery.properties.headers);
    const span = messagingTracer().startSpan(
      `process ${definition.routingKey}`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'rabbitmq',
          'messaging.operation.type': 'process',
          'messaging.destination.name': queue,
          'messaging.rabbitmq.destination.routing_key': delivery.fields.routingKey,
          'messaging.message.id': envelope.id,
          'messaging.message.delivery_count': Number(delivery.properties.headers?.['x-delivery-count'] ?? 0),
        },
      },
      parent,
    );
    const spanContext = trace.setSpan(parent, span);
    const traceContext = traceContextOf(spanContext);
    const logger = withTrace(
      this.options.logger,
      { correlationId: envelope.correlationId, messageId: envelope.id, messageType: definition.routingKey },
      traceContext ? span.spanContext() : undefined,
    );
    const { replyTo } = delivery.properties;
    const message: ConsumedMessage = {
      envelope,
      definition,
      previousDeliveries: Number(delivery.properties.headers?.['x-delivery-count'] ?? 0),
      logger,
      ...(traceContext ? { traceContext } : {}),
      reply: async (replyDefinition, payload) => {
        if (!replyTo) return;
        try {
          this.options.reply(String(replyTo), envelope.id, replyDefinition, payload, envelope.correlationId);
        } catch (error) {
          logger.warn({ err: String(error) }, 'reply could not be sent');
        }
      },
    };
    return { delivery, message, span, context: spanContext };
  }
}
