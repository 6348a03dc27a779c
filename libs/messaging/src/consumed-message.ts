import type { ConsumeMessage } from 'amqplib';
import type { Logger } from 'pino';
import { Envelope, type MessageDefinition, type PayloadOf } from '@bedrequest/contracts';
import type { TraceContext } from './trace-context';

export type HandlerOutcome =
  /** The work is committed: remove the message. */
  | 'ack'
  /** A transient failure: deliver again (counts toward the queue's delivery limit). */
  | 'retry'
  /** The message can never succeed: move it to the dead-letter queue now. */
  | 'dead-letter';

export interface ConsumedMessage {
  readonly envelope: Envelope;
  readonly definition: MessageDefinition;
  /** How often the broker delivered this message before (0 on the first delivery). */
  readonly previousDeliveries: number;
  /** Bound to the message's correlation id, id and type (and, while tracing, its trace and span). */
  readonly logger: Logger;
  /**
   * The trace context of the message's own span (a child of the one its headers carried): what the
   * messages its handling causes continue (MessageMeta, outboxRecord). Undefined while tracing is off.
   */
  readonly traceContext?: TraceContext;
  /**
   * Answers a request published with `publishAndAwaitReply`; a no-op for other messages. Best
   * effort: the requester may have given up or gone, and then the reply is dropped.
   */
  reply<D extends MessageDefinition>(definition: D, payload: PayloadOf<D>): Promise<void>;
}

/**
 * Why a delivery cannot be read, and, as far as it says, what it is: its `<type>.v<version>` (the
 * catalog key) and id, for the one log line of its dead-lettering.
 */
export interface UnreadableDelivery {
  problem: string;
  messageType?: string;
  messageId?: string;
}

/**
 * Reads a delivery: JSON, an envelope, a type and version the catalog knows, a payload its schema
 * accepts. Anything else is a `problem` (the message is dead-lettered at once): a message of a
 * shape this release does not know (docs/compatibility.md) among them.
 */
export function readDelivery(
  delivery: ConsumeMessage,
  catalog: ReadonlyMap<string, MessageDefinition>,
): { envelope: Envelope; definition: MessageDefinition } | UnreadableDelivery {
  let json: unknown;
  try {
    json = JSON.parse(delivery.content.toString('utf8'));
  } catch {
    return { problem: 'content is not JSON' };
  }
  const named = nameOf(json);
  const envelope = Envelope.safeParse(json);
  if (!envelope.success) return { problem: `not an envelope: ${envelope.error.issues[0]?.message}`, ...named };
  const definition = catalog.get(`${envelope.data.type}.v${envelope.data.version}`);
  if (!definition) return { problem: 'not a message of the catalog', ...named };
  const payload = definition.payload.safeParse(envelope.data.payload);
  if (!payload.success) {
    const issue = payload.error.issues[0];
    return { problem: `payload invalid at ${issue?.path.join('.')}: ${issue?.message}`, ...named };
  }
  return { envelope: { ...envelope.data, payload: payload.data }, definition };
}

/** What a message says it is, as far as that can be read (an envelope of version 0 is none): `<type>.v<version>` and its id. */
function nameOf(json: unknown): Omit<UnreadableDelivery, 'problem'> {
  if (typeof json !== 'object' || json === null) return {};
  const { type, version, id } = json as Record<string, unknown>;
  if (typeof type !== 'string' || typeof version !== 'number') return {};
  return { messageType: `${type}.v${version}`, ...(typeof id === 'string' ? { messageId: id } : {}) };
}
