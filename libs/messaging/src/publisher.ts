import { IllegalOperationError, type ConfirmChannel, type ConsumeMessage } from 'amqplib';
import { context, SpanKind, trace, type Context } from '@opentelemetry/api';
import { Counter, type Registry } from 'prom-client';
import type { Envelope, MessageDefinition } from '@bedrequest/contracts';
import { BrokerUnavailableError, PublishRejectedError } from './errors';
import { endSpan, messagingTracer, withTraceHeaders } from './trace-context';

export interface ConfirmedPublisherOptions {
  exchange: string;
  catalog: ReadonlyMap<string, MessageDefinition>;
  /** A publish not confirmed within this time fails (the broker may still have it). */
  timeoutMs: number;
  registers: Registry[];
  /** The channel to publish on; undefined while there is no connection or the service stops. */
  channel(): ConfirmChannel | undefined;
}

/**
 * Publishing with publisher confirms: a publish resolves only when the broker confirmed the message
 * (it is then on a durable queue), and is an error the caller sees otherwise. Messages are
 * persistent and, but for broadcasts, mandatory, so that an unroutable one fails instead of being
 * confirmed into the void.
 */
export class ConfirmedPublisher {
  /** Per publish channel: ids of messages the broker returned as unroutable (basic.return comes before the ack). */
  private readonly returned = new WeakMap<ConfirmChannel, Set<string>>();
  private readonly published: Counter<'routing_key' | 'result'>;

  constructor(private readonly options: ConfirmedPublisherOptions) {
    this.published = new Counter({
      name: 'messages_published_total',
      help: 'Messages published, by routing key and whether the broker confirmed them',
      labelNames: ['routing_key', 'result'],
      registers: options.registers,
    });
  }

  /** Listens for the returns of a new publish channel. */
  attach(channel: ConfirmChannel): void {
    const returnedMessageIds = new Set<string>();
    channel.on('return', (message: ConsumeMessage) => {
      if (message.properties.messageId) returnedMessageIds.add(String(message.properties.messageId));
    });
    this.returned.set(channel, returnedMessageIds);
  }

  /**
   * Rejects with BrokerUnavailableError when there is no connection, and with PublishRejectedError
   * when the broker nacks, cannot route the message, or does not confirm in time. A broadcast (see
   * MessageDefinition) that no process listens to is confirmed all the same.
   *
   * The publish is a span, a child of `parent` (the active context unless the message continues a
   * stored one: the outbox), and the message's headers carry its trace context.
   */
  async publish(routingKey: string, envelope: Envelope, headers?: Record<string, string>, replyTo?: string, parent: Context = context.active()): Promise<void> {
    const span = messagingTracer().startSpan(
      `publish ${routingKey}`,
      {
        kind: SpanKind.PRODUCER,
        attributes: {
          'messaging.system': 'rabbitmq',
          'messaging.operation.type': 'send',
          'messaging.destination.name': this.options.exchange,
          'messaging.rabbitmq.destination.routing_key': routingKey,
          'messaging.message.id': envelope.id,
        },
      },
      parent,
    );
    try {
      await this.publishWithHeaders(routingKey, envelope, withTraceHeaders(headers, trace.setSpan(parent, span)), replyTo);
      endSpan(span);
    } catch (error) {
      endSpan(span, error);
      throw error;
    }
  }

  private async publishWithHeaders(
    routingKey: string,
    envelope: Envelope,
    headers: Record<string, string> | undefined,
    replyTo: string | undefined,
  ): Promise<void> {
    const channel = this.options.channel();
    if (!channel) {
      this.published.inc({ routing_key: routingKey, result: 'unavailable' });
      throw new BrokerUnavailableError('message broker is not connected');
    }
    try {
      await this.confirmed(channel, routingKey, envelope, headers, replyTo);
      this.published.inc({ routing_key: routingKey, result: 'confirmed' });
    } catch (error) {
      this.published.inc({ routing_key: routingKey, result: 'failed' });
      // amqplib refuses at once on a channel that closed before the connection's loss was noticed: nothing was sent.
      throw error instanceof IllegalOperationError ? new BrokerUnavailableError(`message broker is not connected (${error.message})`) : error;
    }
  }

  private confirmed(
    channel: ConfirmChannel,
    routingKey: string,
    envelope: Envelope,
    headers: Record<string, string> | undefined,
    replyTo: string | undefined,
  ): Promise<void> {
    const { timeoutMs, exchange, catalog } = this.options;
    const returnedMessageIds = this.returned.get(channel);
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new PublishRejectedError(`no confirm within ${timeoutMs} ms`)), timeoutMs);
      channel.publish(
        exchange,
        routingKey,
        Buffer.from(JSON.stringify(envelope)),
        {
          persistent: true,
          // mandatory: an unroutable message comes back (basic.return before the ack) instead of
          // being confirmed and silently dropped.
          mandatory: !catalog.get(routingKey)?.broadcast,
          messageId: envelope.id,
          correlationId: envelope.correlationId,
          type: routingKey,
          contentType: 'application/json',
          timestamp: Math.floor(Date.now() / 1000),
          headers,
          replyTo,
        },
        (error: unknown) => {
          clearTimeout(timer);
          if (error) reject(new PublishRejectedError(`broker did not confirm: ${String(error)}`));
          else if (returnedMessageIds?.delete(envelope.id)) reject(new PublishRejectedError(`no queue is bound for ${routingKey}`));
          else resolve();
        },
      );
    });
  }
}
