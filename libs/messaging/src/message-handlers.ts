import type { CatalogMessage, Envelope, MessageDefinition, PayloadOf } from '@bedrequest/contracts';
import type { BatchHandler } from './batch-consumer';
import type { ConsumedMessage, HandlerOutcome } from './consumed-message';
import type { TraceContext } from './trace-context';

/** A consumed message as far as a handler map reads it. */
export type ReceivedMessage = Pick<ConsumedMessage, 'envelope' | 'definition' | 'traceContext'>;

/**
 * What a queue does with each message type it takes, by routing key: a function from the message's
 * payload, typed by its definition in the catalog, to the work item the queue's batch applies.
 * The payload has been checked against its schema when the delivery was read (readDelivery), so
 * the functions take it as it is.
 */
export type MessageHandlers<W> = {
  readonly [D in CatalogMessage as D['routingKey']]?: (payload: PayloadOf<D>, message: ReceivedMessage) => W;
};

/** Metadata of a consumed message: its id keys the inbox, its correlation id and trace context travel on. */
export interface MessageMeta {
  messageId: string;
  messageType: string;
  correlationId: string;
  traceContext?: TraceContext;
}

export function metaOf({
  envelope,
  definition,
  traceContext,
}: {
  envelope: Envelope;
  definition: MessageDefinition;
  traceContext?: TraceContext;
}): MessageMeta {
  return { messageId: envelope.id, messageType: definition.routingKey, correlationId: envelope.correlationId, ...(traceContext ? { traceContext } : {}) };
}

type Handle<W> = (message: ReceivedMessage) => W;

/** The function that makes the work item of `message`; undefined when the map has none for its type. */
function handlerFor<W>(handlers: MessageHandlers<W>, message: ReceivedMessage): Handle<W> | undefined {
  // The map is typed by routing key, so the function found for a routing key takes the payload the
  // catalog's definition for it describes (checked when the delivery was read).
  const handle = (handlers as Record<string, ((payload: unknown, message: ReceivedMessage) => W) | undefined>)[message.definition.routingKey];
  return handle && ((received) => handle(received.envelope.payload, received));
}

/** The work item of `message` (tests; a queue uses handleByType). Throws for a type the map does not handle. */
export function workOf<W>(handlers: MessageHandlers<W>, message: ReceivedMessage): W {
  const handle = handlerFor(handlers, message);
  if (!handle) throw new Error(`no handler for ${message.definition.routingKey}`);
  return handle(message);
}

/**
 * A queue's BatchHandler from its handler map: each message is turned into its work item by the
 * function of its type, and the work items of a batch go to `apply` together, in the batch's order,
 * as one unit of work. A message of a type the map does not name (a message of the catalog bound to
 * the wrong queue) is dead-lettered with one log line naming its type and never reaches `apply`.
 * The others' outcomes are what `apply` returns for them, in order, or 'ack' each when it returns
 * nothing; a thrown error fails the batch (BatchConsumer splits it).
 */
export function handleByType<W>(
  handlers: MessageHandlers<W>,
  apply: (work: W[], messages: ConsumedMessage[]) => Promise<readonly HandlerOutcome[] | void>,
): BatchHandler {
  return async (messages) => {
    const outcomes: HandlerOutcome[] = [];
    const work: W[] = [];
    const handled: ConsumedMessage[] = [];
    const positions: number[] = [];
    messages.forEach((message, index) => {
      const handle = handlerFor(handlers, message);
      if (!handle) {
        message.logger.error({ messageType: message.definition.routingKey }, 'message type not handled on this queue; dead-lettered');
        outcomes[index] = 'dead-letter';
        return;
      }
      work.push(handle(message));
      handled.push(message);
      positions.push(index);
    });
    if (work.length === 0) return outcomes;
    const applied = await apply(work, handled);
    positions.forEach((index, position) => (outcomes[index] = applied ? (applied[position] ?? 'retry') : 'ack'));
    return outcomes;
  };
}
