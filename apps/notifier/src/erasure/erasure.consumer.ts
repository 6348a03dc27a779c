import type { Logger } from 'pino';
import { RequestErasedV1 } from '@bedrequest/contracts';
import type { BatchHandler, HandlerOutcome } from '@bedrequest/messaging';
import type { RequestErasureRepository } from './request-erasure.repository';

/**
 * The notifier queue's handler with erasures: `request.erased.v1` messages are applied here (each
 * its own transaction, then acked), every other message goes to `next` (the AdmissionResponse
 * handler), and the outcomes are put back in the batch's order. The batch's events are stored
 * before its erasures are applied: an event of the request in the same batch came before its
 * erasure, and is then discarded with the rest.
 */
export function withErasures(next: BatchHandler, erasures: RequestErasureRepository, logger: Logger): BatchHandler {
  return async (messages) => {
    const outcomes: HandlerOutcome[] = new Array<HandlerOutcome>(messages.length).fill('ack');
    const others = messages.flatMap((message, index) => (message.definition.routingKey === RequestErasedV1.routingKey ? [] : [{ message, index }]));
    if (others.length > 0) {
      const answered = await next(others.map(({ message }) => message));
      others.forEach(({ index }, position) => (outcomes[index] = answered[position] ?? 'dead-letter'));
    }
    for (const message of messages) {
      if (message.definition.routingKey !== RequestErasedV1.routingKey) continue;
      const payload = message.envelope.payload as RequestErasedV1;
      const counts = await erasures.erase({
        requestIdentifier: payload.requestIdentifier,
        referrerPartyId: payload.referrerPartyId,
        erasedAt: new Date(payload.erasedAt),
      });
      // Ids and counts only.
      logger.info({ messageId: message.envelope.id, ...counts }, 'request erased: pending events discarded, notes dropped');
    }
    return outcomes;
  };
}
