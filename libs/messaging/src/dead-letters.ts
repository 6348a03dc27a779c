import { connect, type ChannelModel, type ConfirmChannel, type GetMessage, type MessagePropertyHeaders, type Options } from 'amqplib';
import { caOptionFor, env } from '@bedrequest/config';
import { deadLetterQueueName } from '@bedrequest/contracts';

/** A message in a dead-letter queue, as a pass shows it to the one who decides what becomes of it. */
export interface DeadLetter {
  /** The queue whose consumer gave it up (`bedrequest.intake`); it waits in that queue's dead-letter queue. */
  readonly queue: string;
  /** The AMQP message id (our envelope's id); undefined for a message published without one. */
  readonly messageId?: string;
  /** The AMQP type (our routing key, `<type>.v<version>`), if it has one. */
  readonly type?: string;
  /** The body parsed as JSON, undefined where it is not JSON. What is read of it is the caller's business. */
  readonly body: unknown;
  readonly firstDeath: FirstDeath;
}

/** Why and when the message was first dead-lettered, as far as its headers say. */
export interface FirstDeath {
  /** `rejected` (its consumer gave it up), `delivery_limit`, …; `unknown` where no header says. */
  readonly reason: string;
  readonly queue?: string;
  readonly at?: Date;
}

/** What becomes of a dead letter: it stays, goes back onto its queue, or is removed. */
export type DeadLetterDecision = 'keep' | 'replay' | 'discard';

/** What one pass over a dead-letter queue did. */
export interface DeadLetterPass {
  seen: number;
  kept: number;
  replayed: number;
  discarded: number;
}

/** Decides, for a chunk of dead letters, what becomes of each (one decision per letter, in order). */
export type DeadLetterDecider = (letters: readonly DeadLetter[]) => Promise<readonly DeadLetterDecision[]>;

/**
 * A chunk is decided, published and acked together: at most this many messages, and no more bytes
 * than this in memory at once (a dead-lettered bundle can be several MB). Few messages, because
 * a quorum queue's channel forwards about 32 commands at a time and keeps the rest until those are
 * applied, and drops what it kept when the channel closes: the acks of a chunk of 36 taken with
 * basic.get, sent just before the close, lost 2 or 3 of them here (RabbitMQ 3.10; reported for 3.12
 * and 3.13 too), and those messages came back. 16 acks, sent once the chunk's publishes are
 * confirmed, never wait there.
 */
const CHUNK_MESSAGES = 16;
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Headers this module writes on a message it keeps, so that its first death survives being
 * published again: from RabbitMQ 3.13 on, `x-` headers belong to the broker, which may not keep
 * the `x-death` and `x-first-death-*` a client publishes.
 */
const FIRST_DEATH_REASON = 'first-death-reason';
const FIRST_DEATH_QUEUE = 'first-death-queue';
const FIRST_DEATH_AT = 'first-death-at';

/**
 * The dead-letter queues (`<queue>.dead-letter`, see libs/contracts deadLetterQueueName), for the
 * administrator's commands and the erasure: one pass over a queue takes each message that was in
 * it when the pass began exactly once, has the caller decide what becomes of it, and then
 *
 * - keep: publishes it again at the end of the same dead-letter queue,
 * - replay: publishes it onto the queue it was dead-lettered from (only that queue: through the
 *   default exchange, not the events exchange, whose other bindings would deliver it twice),
 * - discard: publishes nothing,
 *
 * and acks the original only once the broker confirmed what was published. RabbitMQ cannot remove
 * one message from the middle of a queue; taking every message and publishing again the ones kept
 * is how. Nothing is lost if the pass dies midway: what it had not acked goes back to the queue by
 * itself. A message published but not yet acked is then there twice (the same message, the same
 * id): consumers keep an inbox of message ids and handle it once. Kept messages are published again
 * rather than returned unacked (`nack` with requeue): from RabbitMQ 4.0 a quorum queue has a
 * delivery limit of 20 by default, which 4.0 to 4.2 count returns against, and a dead-letter queue,
 * having no dead-letter queue of its own, would drop a message at the limit.
 *
 * A pass is bounded: it takes as many messages as the queue held when it began (what is published
 * again meanwhile goes behind them) and holds at most one chunk (CHUNK_MESSAGES) in memory.
 */
export class DeadLetterQueues {
  private constructor(private readonly connection: ChannelModel) {}

  /** Connects with the credentials of `url` (a cluster's nodes comma-separated: the first that answers). */
  static async connect(url: string): Promise<DeadLetterQueues> {
    let lastError: unknown = new Error('no broker URL given');
    for (const address of env.urlsOf(url)) {
      try {
        const connection = await connect(address, { noDelay: true, timeout: 10_000, ...caOptionFor(address) });
        // Errors come back to the call that caused them; the event must be heard, not thrown.
        connection.on('error', () => undefined);
        return new DeadLetterQueues(connection);
      } catch (error) {
        lastError = error;
      }
    }
    throw lastError;
  }

  /** Runs `work` on a connection of its own (see connect), closed after it. */
  static async with<T>(url: string, work: (queues: DeadLetterQueues) => Promise<T>): Promise<T> {
    const queues = await DeadLetterQueues.connect(url);
    try {
      return await work(queues);
    } finally {
      await queues.close();
    }
  }

  /** One pass over the dead-letter queue of `queue` (see the class); rejects, and the rest stays where it was, when anything fails. */
  async pass(queue: string, decide: DeadLetterDecider): Promise<DeadLetterPass> {
    const deadLetters = deadLetterQueueName(queue);
    const channel = await this.connection.createConfirmChannel();
    channel.on('error', () => undefined);
    let returned = 0;
    channel.on('return', () => (returned += 1));
    const report: DeadLetterPass = { seen: 0, kept: 0, replayed: 0, discarded: 0 };
    try {
      let limit: number | undefined;
      for (;;) {
        const chunk: GetMessage[] = [];
        let bytes = 0;
        while (chunk.length < CHUNK_MESSAGES && bytes < CHUNK_BYTES && (limit === undefined || report.seen < limit)) {
          const message = await channel.get(deadLetters, { noAck: false });
          if (message === false) break;
          // The queue's length when the pass began: this message and those behind it.
          limit ??= message.fields.messageCount + 1;
          report.seen += 1;
          chunk.push(message);
          bytes += message.content.length;
        }
        if (chunk.length === 0) return report;
        const decisions = await decide(chunk.map((message) => deadLetterOf(queue, message)));
        if (decisions.length !== chunk.length) throw new Error(`${decisions.length} decisions for ${chunk.length} dead letters`);
        const published = chunk.flatMap((message, index) => {
          const decision = decisions[index];
          report[decision === 'keep' ? 'kept' : decision === 'replay' ? 'replayed' : 'discarded'] += 1;
          if (decision === 'keep') return [publishConfirmed(channel, deadLetters, message, headersOf(message, queue))];
          // With its first death: dead-lettered again, it says when it first was. Without its
          // reply-to: nobody waits for the reply any more.
          if (decision === 'replay') return [publishConfirmed(channel, queue, message, headersOf(message, queue), { replyTo: undefined })];
          return [];
        });
        await Promise.all(published);
        // basic.return comes before the confirm: by now every unroutable publish has been counted.
        if (returned > 0) throw new Error(`the broker could not route ${returned} message(s) taken from ${deadLetters}: does the queue exist?`);
        const last = chunk.at(-1);
        if (last) channel.ack(last, true);
      }
    } finally {
      // What was not acked goes back to the queue (and see CHUNK_MESSAGES on the acks just before).
      await channel.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    await this.connection.close().catch(() => undefined);
  }
}

/** The first death of a message, from the headers this module writes, else from RabbitMQ's. */
export function firstDeathOf(headers: MessagePropertyHeaders | undefined): FirstDeath {
  const ours = headers?.[FIRST_DEATH_REASON];
  if (typeof ours === 'string') {
    const at = typeof headers?.[FIRST_DEATH_AT] === 'string' ? new Date(headers[FIRST_DEATH_AT] as string) : undefined;
    return {
      reason: ours,
      ...(typeof headers?.[FIRST_DEATH_QUEUE] === 'string' ? { queue: headers[FIRST_DEATH_QUEUE] as string } : {}),
      ...(at && !Number.isNaN(at.getTime()) ? { at } : {}),
    };
  }
  // x-death has an entry per queue and reason, the latest first.
  const deaths = (Array.isArray(headers?.['x-death']) ? headers['x-death'] : []) as { reason?: unknown; queue?: unknown; time?: unknown }[];
  const reason = typeof headers?.['x-first-death-reason'] === 'string' ? headers['x-first-death-reason'] : undefined;
  const queue = typeof headers?.['x-first-death-queue'] === 'string' ? headers['x-first-death-queue'] : undefined;
  const entry = deaths.find((death) => death.reason === reason && death.queue === queue) ?? deaths.at(-1);
  const at = timestampOf(entry?.time);
  const firstQueue = queue ?? (typeof entry?.queue === 'string' ? entry.queue : undefined);
  return {
    reason: reason ?? (typeof entry?.reason === 'string' ? entry.reason : 'unknown'),
    ...(firstQueue ? { queue: firstQueue } : {}),
    ...(at ? { at } : {}),
  };
}

function deadLetterOf(queue: string, message: GetMessage): DeadLetter {
  const { messageId, type, headers } = message.properties as { messageId?: unknown; type?: unknown; headers?: MessagePropertyHeaders };
  let body: unknown;
  try {
    body = JSON.parse(message.content.toString('utf8'));
  } catch {
    body = undefined;
  }
  return {
    queue,
    ...(typeof messageId === 'string' && messageId ? { messageId } : {}),
    ...(typeof type === 'string' && type ? { type } : {}),
    body,
    firstDeath: firstDeathOf(headers),
  };
}

/**
 * The headers a message is published again with: its own, its first death written where a later
 * pass finds it (see FIRST_DEATH_REASON), without `x-delivery-count` (the quorum queue sets it on
 * delivery; one carried over would count deliveries that were not made).
 */
function headersOf(message: GetMessage, queue: string): MessagePropertyHeaders {
  const headers: MessagePropertyHeaders = { ...message.properties.headers };
  delete headers['x-delivery-count'];
  const firstDeath = firstDeathOf(message.properties.headers);
  return {
    ...headers,
    [FIRST_DEATH_REASON]: firstDeath.reason,
    [FIRST_DEATH_QUEUE]: firstDeath.queue ?? queue,
    ...(firstDeath.at ? { [FIRST_DEATH_AT]: firstDeath.at.toISOString() } : {}),
  };
}

/**
 * Publishes `message` again to `queue` through the default exchange, mandatory (a queue that is
 * not there is an error, not a silent drop), persistent, with its own properties; resolves on the
 * broker's confirm. Its expiration and user id are not carried over: nothing may expire here, and
 * the broker refuses a user id other than the publisher's.
 */
function publishConfirmed(
  channel: ConfirmChannel,
  queue: string,
  message: GetMessage,
  headers: MessagePropertyHeaders,
  overrides: Partial<Options.Publish> = {},
): Promise<void> {
  const { contentType, contentEncoding, priority, correlationId, replyTo, messageId, timestamp, type, appId } = message.properties;
  const defined = Object.fromEntries(
    Object.entries({ contentType, contentEncoding, priority, correlationId, replyTo, messageId, timestamp, type, appId, ...overrides }).filter(
      ([, value]) => value !== undefined,
    ),
  ) as Options.Publish;
  return new Promise<void>((resolve, reject) => {
    channel.publish('', queue, message.content, { ...defined, headers, persistent: true, mandatory: true }, (error: unknown) =>
      error ? reject(new Error(`the broker did not confirm a message published to ${queue}: ${String(error)}`)) : resolve(),
    );
  });
}

function timestampOf(value: unknown): Date | undefined {
  // amqplib reads an AMQP timestamp as { '!': 'timestamp', value: <seconds> }.
  const seconds = typeof value === 'number' ? value : typeof value === 'object' && value !== null ? (value as { value?: unknown }).value : undefined;
  return typeof seconds === 'number' && Number.isFinite(seconds) ? new Date(seconds * 1000) : undefined;
}
