import { AdmissionResponseV1, RequestDispatchedV1 } from '@bedrequest/contracts';
import type { BatchHandler, ConsumedMessage, HandlerOutcome, OutboxRelay } from '@bedrequest/messaging';
import type { ClinicDispatchService } from './clinic-dispatch.service';

/**
 * The routing queue's handler. request.dispatched.v1: fans the request out (one transaction), then wakes the outbox relay
 * so automatic answers leave at once, then acks. A thrown error (database unavailable, deadlock)
 * means retry, bounded by the queue's delivery limit.
 */
// admission.response.v1: releases the bed of a Task its clinic declined.
export function requestDispatchedHandler(service: ClinicDispatchService, relay: Pick<OutboxRelay, 'nudge'>): BatchHandler {
  const handleOne = async (message: ConsumedMessage): Promise<HandlerOutcome> => {
    const { envelope, definition, logger } = message;
    const meta = { messageId: envelope.id, messageType: definition.routingKey, correlationId: envelope.correlationId };
    if (definition.routingKey === AdmissionResponseV1.routingKey) {
      const answer = await service.recordAnswer(envelope.payload as AdmissionResponseV1, meta);
      if (answer.released) logger.info({ taskId: (envelope.payload as AdmissionResponseV1).task['id'] }, 'bed released: the clinic declined');
      return 'ack';
    }
    if (definition.routingKey !== RequestDispatchedV1.routingKey) {
      logger.error('message type not handled by routing');
      return 'dead-letter';
    }
    const result = await service.dispatch(envelope.payload as RequestDispatchedV1, meta);
    if (result.duplicate) {
      logger.info('dispatch already processed; acknowledged again');
      return 'ack';
    }
    relay.nudge();
    // The notification log, also on stdout: ids, IKs and codes only, never patient data.
    for (const { taskId, clinicIk, requestVersion, change, action, departmentCode, outcome, answer } of result.notifications) {
      logger.info({ taskId, clinicIk, requestVersion, change, action, departmentCode, outcome, answer }, 'clinic notified');
    }
    return 'ack';
  };
  return async (messages) => {
    const outcomes: HandlerOutcome[] = [];
    for (const message of messages) outcomes.push(await handleOne(message));
    return outcomes;
  };
}
