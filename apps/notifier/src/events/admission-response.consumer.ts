import { AdmissionResponseV1 } from '@bedrequest/contracts';
import type { BatchHandler, ConsumedMessage, HandlerOutcome } from '@bedrequest/messaging';
import type { EventRepository } from './event.repository';
import { KeyedSerialQueue } from './keyed-serial-queue';

/** The webhook event type of an AdmissionResponseV1 message (spec, "Events"). */
export const ADMISSION_RESPONSE_EVENT = 'AdmissionResponse';

/**
 * The notifier queue's handler: stores the event for the referrer's AdmissionResponse subscription
 * (the delivery worker sends it), then acks. An event for a party without a subscription is not
 * kept: sequence numbers belong to a subscription, the referrer can read its Tasks instead, and no
 * Task content is stored that nobody will receive. A thrown error (database down) means retry.
 * Events of one referrer are stored in the order this consumer received them, so that their
 * sequence numbers follow the queue's order.
 */
export function admissionResponseHandler(events: EventRepository, deliveries: { wake(): void }): BatchHandler {
  const arrivalOrder = new KeyedSerialQueue();
  const handleOne = async (message: ConsumedMessage): Promise<HandlerOutcome> => {
    if (message.definition.routingKey !== AdmissionResponseV1.routingKey) {
      message.logger.error('message type not handled by the notifier');
      return 'dead-letter';
    }
    const payload = message.envelope.payload as AdmissionResponseV1;
    const outcome = await arrivalOrder.run(payload.referrerPartyId, () =>
      events.record({
        messageId: message.envelope.id,
        messageType: message.definition.routingKey,
        eventId: payload.eventId,
        eventType: ADMISSION_RESPONSE_EVENT,
        partyId: payload.referrerPartyId,
        requestIdentifier: payload.requestIdentifier,
        occurredAt: new Date(message.envelope.occurredAt),
        data: payload.task,
      }),
    );
    if (outcome.kind === 'stored') {
      deliveries.wake();
      message.logger.info({ eventId: payload.eventId, subscriptionId: outcome.subscriptionId, sequence: outcome.sequence }, 'event stored for delivery');
    } else if (outcome.kind === 'no-subscription') {
      message.logger.info({ eventId: payload.eventId, partyId: payload.referrerPartyId }, 'event dropped: the party has no AdmissionResponse subscription');
    } else {
      message.logger.info({ eventId: payload.eventId }, 'event already stored');
    }
    return 'ack';
  };
  return async (messages) => {
    const outcomes: HandlerOutcome[] = [];
    for (const message of messages) outcomes.push(await handleOne(message));
    return outcomes;
  };
}
