import { connect, type Channel, type ChannelModel, type ConfirmChannel } from 'amqplib';
import type { Logger } from 'pino';
import { caOptionFor, env } from '@bedrequest/config';
import { coalesceWrites } from './coalesce-writes';
import { BrokerUnavailableError } from './errors';
import { settledWithin } from './settled-within';
import { assertTopology, expectTopology, type BrokerTopology } from './topology';

/** The two channels of one connection: confirmed publishing (and replies), and consuming. */
export interface BrokerChannels {
  publishChannel: ConfirmChannel;
  consumeChannel: Channel;
  /** The node they are on (host:port, never the credentials). */
  address: string;
}

export interface BrokerConnectionOptions {
  /** One URL, or the nodes of a cluster as several URLs separated by commas (AMQP_URL). */
  url: string;
  topology: BrokerTopology;
  deliveryLimit: number;
  /** Declare the topology on every connection (see BrokerOptions.declareTopology). */
  declareTopology: boolean;
  /** Unacknowledged deliveries per consumer of the consume channel. */
  prefetch: number;
  logger: Logger;
  reconnect?: { initialDelayMs: number; maxDelayMs: number };
  /** Sets up what runs on the channels, after every (re)connection. */
  onConnect(channels: BrokerChannels): Promise<void>;
  /**
   * A new publish channel on the same connection, in place of `replaced` (see
   * BrokerConnection#renewPublishChannel): set up what runs on it and publish on it from now on.
   * False when `replaced` is no longer the one publishing (the connection was lost meanwhile).
   */
  onPublishChannel(publishChannel: ConfirmChannel, replaced: ConfirmChannel): Promise<boolean>;
  /** The connection is gone; it reconnects by itself. */
  onDisconnect(error: Error): void;
}

/**
 * A node that neither answers nor refuses (a host gone from the network) is given up after this,
 * and the next one tried: the TCP connect and the AMQP handshake together.
 */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * How long the channels, and what runs on them at every connection (consumers, subscriptions), may
 * take to come up on a node that took the connection: a node that is shutting down may take it and
 * then never answer. After it, the connection is closed and the next node tried.
 */
const SETUP_TIMEOUT_MS = 10_000;

/** A publish channel is replaced at most this often (see renewPublishChannel). */
const RENEWAL_INTERVAL_MS = 1_000;

/**
 * A publish channel that was replaced stays open this long, for the confirms of what was published
 * on it and the replies to requests sent on it; later ones are lost with it (a publish then fails
 * with "channel closed", a request has no reply: never a success that did not happen).
 */
const RETIRED_CHANNEL_CLOSE_MS = 10_000;

/**
 * The connection to RabbitMQ: to one node, or to one of a cluster's nodes. It tries the addresses
 * in turn (the first time from one picked at random, later from the one after the node it lost),
 * and when every one of them failed it waits with
 * exponential backoff (from `initialDelayMs`, doubling, at most `maxDelayMs`, ±20 % jitter) before
 * the next round. On every connection it opens a confirm channel for publishing and a channel with
 * a bounded prefetch for consuming, declares the topology or checks that provisioning did, and
 * hands the channels to `onConnect`. A channel the broker closes on its own takes the connection
 * with it, so that both are opened again rather than one staying dead. A publish channel the broker
 * nacked a publish on is replaced by a new one on the same connection (renewPublishChannel).
 *
 * amqplib's own recovery (`connect` with `recovery`) knows one URL only, hence this loop; what
 * amqplib does on a lost connection stays the same: every channel closes, and every publish still
 * waiting for its confirm is called back with an error ("channel closed"), never with success.
 */
export class BrokerConnection {
  private readonly addresses: readonly string[];
  /**
   * The address tried first on the next attempt: at first one picked at random, so that the
   * instances of the services spread over a cluster's nodes (and the loss of one node moves only
   * the connections it held), then the one after the address last lost.
   */
  private next: number;
  private model?: ChannelModel;
  private closing = false;
  private retryTimer?: NodeJS.Timeout;
  private firstConnection?: { resolve(): void; reject(error: Error): void };
  /** A publish channel being replaced (at most one at a time), and when the last one was. */
  private renewal?: NodeJS.Timeout;
  private lastRenewalAt = Number.NEGATIVE_INFINITY;
  /** Publish channels replaced on purpose: their closing is not the broker's doing. */
  private readonly retired = new WeakSet<Channel>();

  constructor(private readonly options: BrokerConnectionOptions) {
    this.addresses = env.urlsOf(options.url);
    if (this.addresses.length === 0) throw new Error('no broker URL given');
    this.next = Math.floor(Math.random() * this.addresses.length);
  }

  /** Connects, trying every address and then again with backoff, until one of them answers. */
  open(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.firstConnection = { resolve, reject };
      void this.connect(1);
    });
  }

  /** Closes `channels`, then the connection; gives up a reconnection under way. */
  async close(channels: BrokerChannels | undefined, timeoutMs: number): Promise<void> {
    this.closing = true;
    clearTimeout(this.retryTimer);
    clearTimeout(this.renewal);
    this.firstConnection?.reject(new BrokerUnavailableError('the broker connection was closed before it connected'));
    if (channels) {
      // Closing each channel waits for the broker's close-ok, which it sends only after processing
      // the acks before it; closing the connection straight away can lose the last acks.
      await channels.consumeChannel.close().catch(() => undefined);
      await channels.publishChannel.close().catch(() => undefined);
    }
    const model = this.model;
    this.model = undefined;
    // Bounded: a broker that stopped answering may never send its close-ok.
    if (model) await settledWithin([model.close().catch(() => undefined)], timeoutMs);
  }

  /** One round over the addresses; the next round after a backoff if none of them answered. */
  private async connect(round: number): Promise<void> {
    let lastError: Error | undefined;
    for (let tried = 0; tried < this.addresses.length && !this.closing; tried++) {
      const url = this.addresses[this.next];
      this.next = (this.next + 1) % this.addresses.length;
      if (url === undefined) continue;
      try {
        await this.connectTo(url);
        // Lost later, it tries the next node first: this one may be the one that went away.
        this.firstConnection?.resolve();
        this.firstConnection = undefined;
        return;
      } catch (error) {
        lastError = error as Error;
      }
    }
    if (this.closing) return;
    const { initialDelayMs = 200, maxDelayMs = 10_000 } = this.options.reconnect ?? {};
    const delayMs = Math.round(Math.min(maxDelayMs, initialDelayMs * 2 ** (round - 1)) * (0.8 + Math.random() * 0.4));
    this.options.logger.warn(
      { attempt: round, delayMs, brokers: this.addresses.map(addressOf), err: lastError?.message },
      this.addresses.length > 1 ? 'no broker node reachable; retrying' : 'broker unreachable; retrying',
    );
    this.retryTimer = setTimeout(() => void this.connect(round + 1), delayMs);
  }

  private async connectTo(url: string): Promise<void> {
    const model = await connect(url, {
      // Without TCP_NODELAY, Nagle's algorithm meets the broker's delayed ACKs and every confirm
      // waits ~40 ms: 22 confirms/s instead of 589/s with one publish in flight (measured here).
      noDelay: true,
      timeout: CONNECT_TIMEOUT_MS,
      // amqps: the node verified against TLS_CA_FILE (docs/operations.md, "Encryption in transit").
      ...caOptionFor(url),
    });
    let lost: Error | undefined;
    model.on('error', (error: Error) => this.options.logger.error({ err: error.message }, 'broker connection error'));
    model.once('close', (error?: Error) => {
      lost = error ?? new Error('connection closed');
      if (this.model === model) this.lose(lost);
    });
    let publishChannel: ConfirmChannel;
    try {
      if (this.closing) throw new BrokerUnavailableError('closing');
      publishChannel = await withinSetupTime(this.openChannels(model, addressOf(url)), addressOf(url));
      // Closed while the channels were set up: what was set up is gone with it.
      if (lost) throw lost;
      if (this.closing) throw new BrokerUnavailableError('closing');
    } catch (error) {
      await model.close().catch(() => undefined);
      throw error;
    }
    this.model = model;
    this.renewOnNack(model, publishChannel, addressOf(url));
  }

  private lose(error: Error): void {
    this.model = undefined;
    if (this.closing) return;
    this.options.onDisconnect(error);
    void this.connect(1);
  }

  /** Opens the channels and runs `onConnect` on them; the publish channel. */
  private async openChannels(model: ChannelModel, address: string): Promise<ConfirmChannel> {
    const { logger, topology, deliveryLimit, prefetch } = this.options;
    if (!coalesceWrites(model)) logger.warn('amqplib internals changed: frames are written one by one');
    const publishChannel = await model.createConfirmChannel();
    const consumeChannel = await model.createChannel();
    if (this.options.declareTopology) await assertTopology(publishChannel, topology, deliveryLimit);
    else await expectTopology(model, topology);
    await consumeChannel.prefetch(prefetch);
    for (const channel of [publishChannel, consumeChannel]) this.watch(model, channel);
    await this.options.onConnect({ publishChannel, consumeChannel, address });
    return publishChannel;
  }

  private watch(model: ChannelModel, channel: Channel): void {
    channel.on('error', (error: Error) => this.options.logger.error({ err: error.message }, 'broker channel error'));
    // The broker closed the channel (an error on it): the connection goes too, and comes back with both.
    channel.once('close', () => {
      if (this.model === model && !this.closing && !this.retired.has(channel)) void model.close().catch(() => undefined);
    });
  }

  /**
   * Once the broker nacked a publish on it, the publish channel is replaced by a new one on the same
   * connection. RabbitMQ (3.10.8, this machine's) gives a channel, at its first publish to a quorum
   * queue, the queue's members as its record names them, the recorded leader first, and asks that
   * node before it registers the channel with the queue: when that node is down it nacks, and then
   * every later publish of that channel to the queue, new leader or not, until that very node is
   * back. A connection that moved when its node went away publishes its first messages right then,
   * while the record still names the lost leader (the cluster fault: a gateway whose connection was
   * on the stopped node answered 503 until the node was back). A new channel reads the record
   * again, so it publishes once the new leader is recorded; until then it is nacked too and replaced
   * again, at most once per RENEWAL_INTERVAL_MS. A nacked publish failed for its caller; the
   * connection and its consumers stay.
   */
  private renewOnNack(model: ChannelModel, channel: ConfirmChannel, address: string): void {
    channel.once('nack', () => {
      if (this.model !== model || this.closing) return;
      const delayMs = Math.max(0, this.lastRenewalAt + RENEWAL_INTERVAL_MS - Date.now());
      this.renewal = setTimeout(() => void this.renewPublishChannel(model, channel, address), delayMs);
    });
  }

  private async renewPublishChannel(model: ChannelModel, stale: ConfirmChannel, address: string): Promise<void> {
    this.renewal = undefined;
    if (this.model !== model || this.closing) return;
    this.lastRenewalAt = Date.now();
    let fresh: ConfirmChannel | undefined;
    try {
      fresh = await model.createConfirmChannel();
      this.watch(model, fresh);
      if (this.model !== model || this.closing || !(await this.options.onPublishChannel(fresh, stale))) {
        this.retire(fresh, 0);
        return;
      }
    } catch (error) {
      // The connection is going (it reconnects with new channels), or the new channel failed: the old one stays, and is watched again.
      if (fresh) this.retire(fresh, 0);
      if (this.model === model) this.renewOnNack(model, stale, address);
      this.options.logger.warn({ broker: address, err: (error as Error).message }, 'broker publish channel could not be replaced');
      return;
    }
    this.renewOnNack(model, fresh, address);
    this.retire(stale, RETIRED_CHANNEL_CLOSE_MS);
    this.options.logger.warn({ broker: address }, 'broker nacked a publish: publishing on a new channel');
  }

  /**
   * Closes the consume channel when the service stops consuming, without taking the connection
   * (and publishing) with it; the broker returns what was delivered on it and not settled.
   */
  async closeConsumeChannel(channels: BrokerChannels): Promise<void> {
    this.retired.add(channels.consumeChannel);
    await channels.consumeChannel.close().catch(() => undefined);
  }

  /** Closes a channel replaced on purpose after `afterMs`, without taking the connection with it. */
  private retire(channel: ConfirmChannel, afterMs: number): void {
    this.retired.add(channel);
    setTimeout(() => void channel.close().catch(() => undefined), afterMs).unref();
  }
}

/** host:port of a broker URL: what logs may say of it. */
function addressOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || (parsed.protocol === 'amqps:' ? 5671 : 5672)}`;
}

/** `setup`, or a BrokerUnavailableError once SETUP_TIMEOUT_MS have passed without it. */
async function withinSetupTime<T>(setup: Promise<T>, address: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new BrokerUnavailableError(`the broker node ${address} did not set up the channels within ${SETUP_TIMEOUT_MS} ms`)),
      SETUP_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([setup, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
