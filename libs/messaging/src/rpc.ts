import type { ConfirmChannel, ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import { createEnvelope, type Envelope, type MessageDefinition, type PayloadOf, type TypedEnvelope } from '@bedrequest/contracts';
import { readDelivery } from './consumed-message';
import type { ConfirmedPublisher } from './publisher';

/** RabbitMQ's direct reply-to pseudo-queue: replies go straight to the requesting channel. */
const DIRECT_REPLY_QUEUE = 'amq.rabbitmq.reply-to';
const IN_REPLY_TO = 'x-in-reply-to';

export interface RequestReplyOptions {
  catalog: ReadonlyMap<string, MessageDefinition>;
  logger: Logger;
  publisher: ConfirmedPublisher;
  /** The channel replies are sent on; undefined while there is no connection. */
  channel(): ConfirmChannel | undefined;
}

interface PendingReply {
  resolve(reply: Envelope | undefined): void;
  timer: NodeJS.Timeout;
}

/**
 * Request/reply over RabbitMQ's direct reply-to: a request is published (confirmed) with the reply
 * pseudo-queue as `replyTo`; its consumer answers with `reply`, which comes back on the publish
 * channel of the requester and settles the request waiting for it.
 */
export class RequestReply {
  private readonly pendingReplies = new Map<string, PendingReply>();

  constructor(private readonly options: RequestReplyOptions) {}

  /** Listens for replies on a new publish channel (they arrive on the channel that sent the request). */
  async attach(channel: ConfirmChannel): Promise<void> {
    await channel.consume(DIRECT_REPLY_QUEUE, (delivery) => this.onReply(delivery), { noAck: true });
  }

  /**
   * Publishes a request (confirmed) and waits up to `replyTimeoutMs` for the consumer's reply.
   * `reply` is undefined when none came in time: the request is still safely on its queue and will
   * be processed; only the synchronous answer was not available.
   */
  async request<D extends MessageDefinition>(
    definition: D,
    payload: PayloadOf<D>,
    meta: { correlationId: string; id?: string },
    replyTimeoutMs: number,
  ): Promise<{ envelope: TypedEnvelope<D>; reply?: Envelope }> {
    const envelope = createEnvelope(definition, payload, meta);
    const reply = new Promise<Envelope | undefined>((resolve) => {
      const timer = setTimeout(() => this.settle(envelope.id, undefined), replyTimeoutMs);
      this.pendingReplies.set(envelope.id, { resolve, timer });
    });
    try {
      await this.options.publisher.publish(definition.routingKey, envelope, undefined, DIRECT_REPLY_QUEUE);
    } catch (error) {
      this.settle(envelope.id, undefined);
      throw error;
    }
    return { envelope, reply: await reply };
  }

  /** Sends a reply without waiting for anything: direct reply-to is not confirmed, and is best effort. */
  reply(replyTo: string, requestId: string, definition: MessageDefinition, payload: unknown, correlationId: string): void {
    const channel = this.options.channel();
    if (!channel) return;
    const envelope = createEnvelope(definition, payload, { correlationId });
    channel.publish('', replyTo, Buffer.from(JSON.stringify(envelope)), {
      messageId: envelope.id,
      correlationId,
      contentType: 'application/json',
      headers: { [IN_REPLY_TO]: requestId },
    });
  }

  /** The connection is gone, and with it the channel replies travel on: no pending reply can arrive any more. */
  abandonPending(): void {
    for (const id of [...this.pendingReplies.keys()]) this.settle(id, undefined);
  }

  private settle(requestId: string, reply: Envelope | undefined): void {
    const pending = this.pendingReplies.get(requestId);
    if (!pending) return;
    this.pendingReplies.delete(requestId);
    clearTimeout(pending.timer);
    pending.resolve(reply);
  }

  private onReply(delivery: ConsumeMessage | null): void {
    const requestId = delivery?.properties.headers?.[IN_REPLY_TO];
    if (!delivery || typeof requestId !== 'string') return;
    const parsed = readDelivery(delivery, this.options.catalog);
    if ('problem' in parsed) {
      this.options.logger.error({ problem: parsed.problem }, 'unreadable reply ignored');
      return;
    }
    this.settle(requestId, parsed.envelope);
  }
}
