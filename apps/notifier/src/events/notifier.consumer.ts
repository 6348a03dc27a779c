import type { Logger } from 'pino';
import { AdmissionOverdueV1, AdmissionResponseV1, RequestErasedV1, type SubscriptionEventType } from '@bedrequest/contracts';
import { handleByType, type BatchHandler, type ConsumedMessage, type MessageHandlers, type ReceivedMessage } from '@bedrequest/messaging';
import type { DeliveryWorker } from '../delivery/delivery-worker';
import type { RequestErasureRepository } from '../erasure/request-erasure.repository';
import type { IncomingEvent, RecordOutcome } from './event.repository';

/** The webhook event type of an AdmissionResponseV1 message (spec, "Events"). */
export const ADMISSION_RESPONSE_EVENT = 'AdmissionResponse' satisfies SubscriptionEventType;
/** The webhook event type of an AdmissionOverdueV1 message (docs/webhooks.md): a subscription of its own. */
export const ADMISSION_OVERDUE_EVENT = 'AdmissionOverdue' satisfies SubscriptionEventType;

type ErasedRequest = Parameters<RequestErasureRepository['erase']>[0];

/** What the notifier does with each message of its queue. */
type NotifierWork = { kind: 'event'; event: IncomingEvent } | { kind: 'erasure'; request: ErasedRequest };

/** The fields every event message carries, whatever its type. */
interface EventPayload {
  eventId: string;
  referrerPartyId: string;
  requestIdentifier: string;
  task: unknown;
}

/** An event message as the work item of its party's subscription to `eventType`. */
const eventOf =
  (eventType: SubscriptionEventType) =>
  (payload: EventPayload, { envelope, definition, traceContext }: ReceivedMessage): NotifierWork => ({
    kind: 'event',
    event: {
      messageId: envelope.id,
      messageType: definition.routingKey,
      eventId: payload.eventId,
      eventType,
      partyId: payload.referrerPartyId,
      requestIdentifier: payload.requestIdentifier,
      occurredAt: new Date(envelope.occurredAt),
      data: payload.task,
      ...(traceContext ? { traceContext } : {}),
    },
  });

const notifierWork: MessageHandlers<NotifierWork> = {
  [AdmissionResponseV1.routingKey]: eventOf(ADMISSION_RESPONSE_EVENT),
  // The Task past its deadline, to the AdmissionOverdue subscription: its own sequence numbers, so
  // the AdmissionResponse stream a receiver already follows stays as it was.
  [AdmissionOverdueV1.routingKey]: eventOf(ADMISSION_OVERDUE_EVENT),
  [RequestErasedV1.routingKey]: ({ requestIdentifier, referrerPartyId, erasedAt }) => ({
    kind: 'erasure',
    request: { requestIdentifier, referrerPartyId, erasedAt: new Date(erasedAt) },
  }),
};

/**
 * The notifier queue's handler. AdmissionResponse and AdmissionOverdue messages become events for the
 * referrers' subscriptions to that event type: a batch's events are stored in one statement, which also hands
 * those that can go out at once to the delivery worker (DeliveryWorker.storeAndHandOver; the worker
 * sends the others later). An event for a party without a subscription is not kept: sequence
 * numbers belong to a subscription, the referrer can read its Tasks instead, and no Task content is
 * stored that nobody will receive. Nor is an event of a request that was erased before it arrived
 * (EventRepository, `erased`).
 *
 * `request.erased.v1` messages are applied after the batch's events (each erasure its own
 * transaction): an event of the request in the same batch came before its erasure, and is then
 * discarded with the rest. A thrown error (database down) means retry; the broker then splits the
 * batch and tries each message alone.
 *
 * Sequence numbers follow the queue's order: the broker hands this handler one batch at a time, in
 * queue order, and the batch is numbered in its order (EventRepository.recordAll).
 *
 * Logs name ids and counts only, never the Task (it may hold notes about the patient).
 */
export function notifierHandler(
  deliveries: Pick<DeliveryWorker, 'storeAndHandOver'>,
  erasures: Pick<RequestErasureRepository, 'erase'>,
  logger: Logger,
): BatchHandler {
  return handleByType(notifierWork, async (work, messages) => {
    const events = work.flatMap((item, index) => {
      const message = messages[index];
      return item.kind === 'event' && message ? [{ event: item.event, message }] : [];
    });
    if (events.length > 0) await storeEvents(deliveries, events, logger);
    for (const [index, item] of work.entries()) {
      if (item.kind !== 'erasure') continue;
      const counts = await erasures.erase(item.request);
      // Ids and counts only.
      logger.info({ messageId: messages[index]?.envelope.id, ...counts }, 'request erased: pending events discarded, notes dropped');
    }
  });
}

async function storeEvents(
  deliveries: Pick<DeliveryWorker, 'storeAndHandOver'>,
  events: { event: IncomingEvent; message: ConsumedMessage }[],
  logger: Logger,
): Promise<void> {
  const recorded = await deliveries.storeAndHandOver(events.map(({ event }) => event));
  const counts = { stored: 0, handedOver: 0, duplicates: 0, withoutSubscription: 0, ofErasedRequests: 0 };
  events.forEach(({ event, message }, index) => {
    const outcome = recorded[index] ?? { kind: 'duplicate' };
    logOutcome(message, event, outcome);
    if (outcome.kind === 'stored') {
      counts.stored += 1;
      if (outcome.handedOver) counts.handedOver += 1;
    } else if (outcome.kind === 'duplicate') counts.duplicates += 1;
    else if (outcome.kind === 'erased') counts.ofErasedRequests += 1;
    else counts.withoutSubscription += 1;
  });
  logger.info({ messages: events.length, ...counts }, 'events stored for delivery');
}

function logOutcome(message: ConsumedMessage, { eventId, eventType, partyId }: IncomingEvent, outcome: RecordOutcome): void {
  if (outcome.kind === 'stored') {
    message.logger.debug({ eventId, subscriptionId: outcome.subscriptionId, sequence: outcome.sequence }, 'event stored for delivery');
  } else if (outcome.kind === 'no-subscription') {
    message.logger.debug({ eventId, eventType, partyId }, 'event dropped: the party has no subscription to its event type');
  } else if (outcome.kind === 'erased') {
    message.logger.info({ eventId, partyId }, "event dropped: the request's patient data was erased before it arrived");
  } else {
    message.logger.debug({ eventId }, 'event already stored');
  }
}
