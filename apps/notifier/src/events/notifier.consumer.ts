import type { Logger } from 'pino';
import { AdmissionResponseV1 } from '@bedrequest/contracts';
import type { BatchHandler, ConsumedMessage, HandlerOutcome } from '@bedrequest/messaging';
import type { DeliveryWorker } from '../delivery/delivery-worker';
import type { IncomingEvent, RecordOutcome } from './event.repository';

/** The webhook event type of an AdmissionResponseV1 message (spec, "Events"). */
export const ADMISSION_RESPONSE_EVENT = 'AdmissionResponse';

/**
 * The notifier queue's handler: stores a batch of events for the referrers' AdmissionResponse
 * subscriptions in one statement, which also hands those that can go out at once to the delivery
 * worker (DeliveryWorker.storeAndHandOver; the worker sends the others later), then acks. An event
 * for a party without a subscription is not kept: sequence numbers belong to a subscription, the
 * referrer can read its Tasks instead, and no Task content is stored that nobody will receive. Nor
 * is an event of a request that was erased before it arrived (EventRepository, `erased`). A thrown
 * error (database down) means retry; the broker then splits the batch and tries each message alone.
 *
 * Sequence numbers follow the queue's order: the broker hands this handler one batch at a time, in
 * queue order, and the batch is numbered in its order (EventRepository.recordAll).
 *
 * Logs name ids and counts only, never the Task (it may hold notes about the patient).
 */
export function admissionResponseHandler(deliveries: Pick<DeliveryWorker, 'storeAndHandOver'>, logger: Logger): BatchHandler {
  return async (messages) => {
    const outcomes: HandlerOutcome[] = messages.map((message) => (message.definition.routingKey === AdmissionResponseV1.routingKey ? 'ack' : 'dead-letter'));
    const readable = messages.filter((message, index) => {
      if (outcomes[index] === 'ack') return true;
      message.logger.error('message type not handled by the notifier');
      return false;
    });
    if (readable.length === 0) return outcomes;

    const recorded = await deliveries.storeAndHandOver(readable.map(incomingEvent));
    const counts = { stored: 0, handedOver: 0, duplicates: 0, withoutSubscription: 0, ofErasedRequests: 0 };
    readable.forEach((message, index) => {
      const outcome = recorded[index] ?? { kind: 'duplicate' };
      logOutcome(message, outcome);
      if (outcome.kind === 'stored') {
        counts.stored += 1;
        if (outcome.handedOver) counts.handedOver += 1;
      } else if (outcome.kind === 'duplicate') counts.duplicates += 1;
      else if (outcome.kind === 'erased') counts.ofErasedRequests += 1;
      else counts.withoutSubscription += 1;
    });
    logger.info({ messages: messages.length, ...counts, deadLettered: messages.length - readable.length }, 'events stored for delivery');
    return outcomes;
  };
}

function incomingEvent(message: ConsumedMessage): IncomingEvent {
  const payload = message.envelope.payload as AdmissionResponseV1;
  return {
    messageId: message.envelope.id,
    messageType: message.definition.routingKey,
    eventId: payload.eventId,
    eventType: ADMISSION_RESPONSE_EVENT,
    partyId: payload.referrerPartyId,
    requestIdentifier: payload.requestIdentifier,
    occurredAt: new Date(message.envelope.occurredAt),
    data: payload.task,
  };
}

function logOutcome(message: ConsumedMessage, outcome: RecordOutcome): void {
  const { eventId, referrerPartyId: partyId } = message.envelope.payload as AdmissionResponseV1;
  if (outcome.kind === 'stored') {
    message.logger.debug({ eventId, subscriptionId: outcome.subscriptionId, sequence: outcome.sequence }, 'event stored for delivery');
  } else if (outcome.kind === 'no-subscription') {
    message.logger.debug({ eventId, partyId }, 'event dropped: the party has no AdmissionResponse subscription');
  } else if (outcome.kind === 'erased') {
    message.logger.info({ eventId, partyId }, "event dropped: the request's patient data was erased before it arrived");
  } else {
    message.logger.debug({ eventId }, 'event already stored');
  }
}
