import type { Logger } from 'pino';
import { AdmissionResponseV1 } from '@bedrequest/contracts';
import type { BatchHandler, ConsumedMessage, HandlerOutcome } from '@bedrequest/messaging';
import type { DeliveryWorker } from '../delivery/delivery-worker';
import type { EventRepository, IncomingEvent, RecordOutcome } from './event.repository';

/** The webhook event type of an AdmissionResponseV1 message (spec, "Events"). */
export const ADMISSION_RESPONSE_EVENT = 'AdmissionResponse';

/**
 * The notifier queue's handler: stores a batch of events for the referrers' AdmissionResponse
 * subscriptions in one statement (the delivery worker sends them), then acks. An event for a party
 * without a subscription is not kept: sequence numbers belong to a subscription, the referrer can
 * read its Tasks instead, and no Task content is stored that nobody will receive. Nor is an event of
 * a request that was erased before it arrived (EventRepository, `erased`). A thrown error
 * (database down) means retry; the broker then splits the batch and tries each message alone.
 *
 * Sequence numbers follow the queue's order: the broker hands this handler one batch at a time, in
 * queue order, and the batch is numbered in its order (EventRepository.recordAll).
 *
 * Logs name ids and counts only, never the Task (it may hold notes about the patient).
 */
export function admissionResponseHandler(
  events: EventRepository,
  deliveries: Pick<DeliveryWorker, 'reserve' | 'handOver' | 'leaseMs'>,
  logger: Logger,
): BatchHandler {
  return async (messages) => {
    const outcomes: HandlerOutcome[] = messages.map((message) => (message.definition.routingKey === AdmissionResponseV1.routingKey ? 'ack' : 'dead-letter'));
    const readable = messages.filter((message, index) => {
      if (outcomes[index] === 'ack') return true;
      message.logger.error('message type not handled by the notifier');
      return false;
    });
    if (readable.length === 0) return outcomes;

    const incoming = readable.map(incomingEvent);
    // Events that can go out at once are claimed by the statement that stores them (see recordAll).
    const reserved = deliveries.reserve(incoming.length);
    let recorded: Awaited<ReturnType<EventRepository['recordAll']>>;
    try {
      recorded = await events.recordAll(incoming, { limit: reserved, leaseMs: deliveries.leaseMs });
    } catch (error) {
      deliveries.handOver({ claimed: [], unreadable: [] }, reserved, { noSlot: 0, followUps: [] });
      throw error;
    }
    const counts = { stored: 0, handedOver: 0, duplicates: 0, withoutSubscription: 0, ofErasedRequests: 0 };
    const leftBehind = { noSlot: 0, followUps: [] as { subscriptionId: string; requestIdentifier: string }[] };
    readable.forEach((message, index) => {
      const outcome = recorded.outcomes[index] ?? { kind: 'duplicate' };
      logOutcome(message, outcome);
      if (outcome.kind === 'stored') {
        counts.stored += 1;
        if (outcome.handedOver) counts.handedOver += 1;
        else if (outcome.waitsForEarlier) {
          leftBehind.followUps.push({ subscriptionId: outcome.subscriptionId, requestIdentifier: incoming[index]!.requestIdentifier });
        } else leftBehind.noSlot += 1;
      } else if (outcome.kind === 'duplicate') counts.duplicates += 1;
      else if (outcome.kind === 'erased') counts.ofErasedRequests += 1;
      else counts.withoutSubscription += 1;
    });
    deliveries.handOver(recorded, reserved, leftBehind);
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
