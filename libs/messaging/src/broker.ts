import type { ConfirmChannel } from 'amqplib';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { createEnvelope, type Envelope, type MessageDefinition, type PayloadOf, type TypedEnvelope } from '@bedrequest/contracts';
import type { BatchHandler, BatchSettings } from './batch-consumer';
import { BrokerConnection, type BrokerChannels } from './connection';
import { QueueConsumers } from './consumer';
import { ConfirmedPublisher } from './publisher';
import { RequestReply } from './rpc';
import { BroadcastSubscriptions, type Subscription } from './subscription';
import type { BrokerTopology } from './topology';
import { contextFrom, type TraceContext } from './trace-context';

export interface BrokerOptions {
  /**
   * The broker: one URL, or the nodes of a cluster as several URLs separated by commas (AMQP_URL).
   * With several, it connects to one of them (picked at random) and, when that node goes away, to the next.
   */
  url: string;
  topology: BrokerTopology;
  /** Routing key → schema of every message this service may publish or consume. */
  catalog: ReadonlyMap<string, MessageDefinition>;
  logger: Logger;
  /** Unacknowledged deliveries per consumer: the batch being handled plus the ones collecting. */
  prefetch: number;
  deliveryLimit: number;
  /**
   * Whether this connection declares the whole topology (an administrator's right): only a test's or
   * a tool's on the local administrator (the default). A service's never (connectServiceBroker):
   * provisioning declares it and the service's broker user may not (docs/operations.md,
   * "Provisioning"); without it, the connection checks that the events exchange is there.
   */
  declareTopology?: boolean;
  metrics?: Registry;
  /** A publish not confirmed within this time fails (the broker may still have it: see publish). */
  publishTimeoutMs?: number;
  /** Backoff between rounds over the addresses when none answered. Default: from 200 ms, doubling, at most 10 s. */
  reconnect?: { initialDelayMs: number; maxDelayMs: number };
  /** Pause before a 'retry' outcome is returned to the queue, times the delivery count. */
  retryBackoffMs?: number;
  /**
   * A message that fails alone while its dependencies are down is tried again in-process, with
   * exponential backoff, before it goes back to the queue: a database restart does not use up the
   * delivery limit in a second. Default: 6 retries from 250 ms, doubling, at most 15 s apart
   * (about 16–31 s per delivery).
   */
  handlerRetry?: { retries: number; minTimeoutMs: number; maxTimeoutMs: number };
  /** Batching of consumers (see BatchConsumer). Default: up to half the prefetch, 2 ms window. */
  batch?: { maxBatch?: number; windowMs?: number };
}

/**
 * The only owner of amqplib in the code base, and the one object a service holds. It connects and
 * reconnects (BrokerConnection), publishes with publisher confirms (ConfirmedPublisher), sends
 * requests and replies (RequestReply), consumes durable queues in batches with manual acks
 * (QueueConsumers, BatchConsumer) and subscribes to broadcasts (BroadcastSubscriptions). It owns the
 * order of a graceful stop: consumers are cancelled, what they took is handled, then channels and
 * connection close.
 */
export class Broker {
  private readonly connection: BrokerConnection;
  private readonly publisher: ConfirmedPublisher;
  private readonly rpc: RequestReply;
  private readonly consumers: QueueConsumers;
  private readonly subscriptions: BroadcastSubscriptions;
  private connected?: BrokerChannels;
  private stopping = false;
  /** Set by stopConsuming: the consumers' last deliveries being handled. */
  private draining?: Promise<void>;

  constructor(private readonly options: BrokerOptions) {
    const { catalog, logger, topology } = options;
    const registers = options.metrics ? [options.metrics] : [];
    this.publisher = new ConfirmedPublisher({
      exchange: topology.eventsExchange,
      catalog,
      timeoutMs: options.publishTimeoutMs ?? 5_000,
      registers,
      channel: () => (this.stopping ? undefined : this.connected?.publishChannel),
    });
    this.rpc = new RequestReply({ catalog, logger, publisher: this.publisher, channel: () => this.connected?.publishChannel });
    this.consumers = new QueueConsumers({
      catalog,
      logger,
      registers,
      settings: batchSettings(options),
      isCurrentChannel: (channel) => this.connected?.consumeChannel === channel || this.stopping,
      isStopping: () => this.stopping || this.draining !== undefined,
      reply: (...reply) => this.rpc.reply(...reply),
    });
    this.subscriptions = new BroadcastSubscriptions({ exchange: topology.eventsExchange, catalog, logger });
    this.connection = new BrokerConnection({
      url: options.url,
      topology,
      deliveryLimit: options.deliveryLimit,
      declareTopology: options.declareTopology ?? true,
      prefetch: options.prefetch,
      logger,
      reconnect: options.reconnect,
      onConnect: (channels) => this.onConnect(channels),
      onPublishChannel: (publishChannel, replaced) => this.onPublishChannel(publishChannel, replaced),
      onDisconnect: (error) => this.onDisconnect(error),
    });
  }

  /** Connects (retrying with backoff until the broker answers) and declares the topology where it is asked to. */
  async start(): Promise<void> {
    await this.connection.open();
  }

  isReady(): boolean {
    return this.connected !== undefined && !this.stopping;
  }

  /**
   * Publishes one message and resolves only when the broker confirmed it (it is then on a durable
   * queue). Rejects with BrokerUnavailableError when there is no connection, and with
   * PublishRejectedError when the broker nacks, cannot route the message, or does not confirm in
   * time, or when the connection is lost before the confirm came (the broker may have taken the
   * message or not: never a success the caller could pass on).
   */
  async publish<D extends MessageDefinition>(
    definition: D,
    payload: PayloadOf<D>,
    meta: { correlationId: string; id?: string; headers?: Record<string, string> },
  ): Promise<TypedEnvelope<D>> {
    const envelope = createEnvelope(definition, payload, meta);
    await this.publisher.publish(definition.routingKey, envelope, meta.headers);
    return envelope;
  }

  /**
   * Publishes an envelope created earlier (e.g. stored in an outbox), with the same guarantees as
   * `publish`; `traceContext`, stored with it, is the trace it continues.
   */
  async publishEnvelope(routingKey: string, envelope: Envelope, headers?: Record<string, string>, traceContext?: TraceContext | null): Promise<void> {
    await this.publisher.publish(routingKey, envelope, headers, undefined, traceContext === undefined ? undefined : contextFrom(traceContext));
  }

  /** A request and its consumer's reply, if one comes within `replyTimeoutMs` (see RequestReply). */
  async publishAndAwaitReply<D extends MessageDefinition>(
    definition: D,
    payload: PayloadOf<D>,
    meta: { correlationId: string; id?: string },
    replyTimeoutMs: number,
  ): Promise<{ envelope: TypedEnvelope<D>; reply?: Envelope }> {
    return this.rpc.request(definition, payload, meta, replyTimeoutMs);
  }

  /**
   * Registers the batch consumer of a durable queue; it starts now if connected, and again after
   * every reconnection. See BatchConsumer for batching, ordering, splitting and settling.
   */
  async consume(queue: string, handler: BatchHandler): Promise<void> {
    const ordered = Object.values(this.options.topology.queues).some((declared) => declared.name === queue && declared.singleActiveConsumer === true);
    await this.consumers.add(queue, handler, this.connected?.consumeChannel, ordered);
  }

  /**
   * A broadcast to every process that listens (see BroadcastSubscriptions). `onSubscribed` runs
   * after every (re)subscription, for the subscriber to catch up another way on what it missed
   * while disconnected (reload what it caches).
   */
  async subscribe(subscription: Subscription): Promise<void> {
    await this.subscriptions.add(subscription, this.connected?.consumeChannel);
  }

  /**
   * Graceful stop: no new deliveries, what was delivered is handled and acked, then the channels
   * and the connection close. Work still running after `timeoutMs` is abandoned; its messages were
   * not acked and the broker delivers them again.
   */
  async stop(timeoutMs = 10_000): Promise<void> {
    if (this.stopping) return;
    await this.stopConsuming(timeoutMs);
    this.stopping = true;
    const channels = this.connected;
    this.connected = undefined;
    await this.connection.close(channels, timeoutMs);
  }

  /**
   * The first half of a graceful stop: no new deliveries (the consumers are cancelled, and not started
   * again on a reconnection), and what was delivered is handled and settled, at most `timeoutMs`.
   * Publishing still works, for what that work wrote into an outbox; `stop` does the rest.
   */
  async stopConsuming(timeoutMs = 10_000): Promise<void> {
    this.draining ??= (async () => {
      const channels = this.connected;
      if (channels) await this.consumers.cancel(channels.consumeChannel);
      await this.consumers.drain(timeoutMs);
      // An ordered consumer stops with its channel (QueueConsumers#cancel); the broadcasts on it end too.
      if (channels && this.consumers.hasOrdered) await this.connection.closeConsumeChannel(channels);
    })();
    await this.draining;
  }

  private async onConnect(channels: BrokerChannels): Promise<void> {
    // Returns and replies are listened for before anything is published on the new channel.
    this.publisher.attach(channels.publishChannel);
    await this.rpc.attach(channels.publishChannel);
    // Connected before the consumers start: their first deliveries are settled on this channel.
    this.connected = channels;
    if (!this.draining) await this.consumers.startAll(channels.consumeChannel);
    await this.subscriptions.startAll(channels.consumeChannel);
    this.options.logger.info({ broker: channels.address, consumers: this.consumers.queues }, 'broker connected');
  }

  /** A new publish channel in place of one the broker nacked a publish on (BrokerConnection#renewPublishChannel). */
  private async onPublishChannel(publishChannel: ConfirmChannel, replaced: ConfirmChannel): Promise<boolean> {
    if (this.connected?.publishChannel !== replaced) return false;
    this.publisher.attach(publishChannel);
    // Replies to what is sent on it come back on it; those to requests sent on the old one, on the old one.
    await this.rpc.attach(publishChannel);
    if (this.connected?.publishChannel !== replaced) return false;
    this.connected = { ...this.connected, publishChannel };
    return true;
  }

  private onDisconnect(error: Error): void {
    this.connected = undefined;
    this.rpc.abandonPending();
    if (!this.stopping) this.options.logger.warn({ err: error.message }, 'broker connection lost; reconnecting');
  }
}

function batchSettings({ prefetch, batch, handlerRetry, retryBackoffMs }: BrokerOptions): BatchSettings {
  return {
    maxBatch: batch?.maxBatch ?? Math.max(1, Math.floor(prefetch / 2)),
    windowMs: batch?.windowMs ?? 2,
    handlerRetry: handlerRetry ?? { retries: 6, minTimeoutMs: 250, maxTimeoutMs: 15_000 },
    retryBackoffMs: retryBackoffMs ?? 100,
  };
}
