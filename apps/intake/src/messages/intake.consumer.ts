import {
  AdmissionBundleSubmittedV1,
  ClinicAnswerSubmittedV1,
  DocumentBundleSubmittedV1,
  IntakeVerdictV1,
  type IntakeVerdictV1 as Verdict,
} from '@bedrequest/contracts';
import type { BatchHandler, ConsumedMessage, HandlerOutcome, OutboxRelay } from '@bedrequest/messaging';
import type { IntakeService, MessageMeta } from '../requests/intake.service';

/**
 * The intake queue's handler: runs the use case, then (after its commit) replies with the verdict
 * and wakes the outbox relay, then acks. A thrown error (database unavailable) means retry.
 */
export function intakeHandler(service: IntakeService, relay: OutboxRelay): BatchHandler {
  const handleOne = async (message: ConsumedMessage): Promise<HandlerOutcome> => {
    const { envelope, definition } = message;
    const meta: MessageMeta = { messageId: envelope.id, messageType: definition.routingKey, correlationId: envelope.correlationId };
    let verdict: Verdict;
    switch (definition.routingKey) {
      case AdmissionBundleSubmittedV1.routingKey:
        verdict = await service.submitAdmissionRequest(envelope.payload as AdmissionBundleSubmittedV1, meta);
        break;
      case DocumentBundleSubmittedV1.routingKey:
        verdict = await service.submitDocument(envelope.payload as DocumentBundleSubmittedV1, meta);
        break;
      case ClinicAnswerSubmittedV1.routingKey:
        verdict = await service.answer(envelope.payload as ClinicAnswerSubmittedV1, meta);
        break;
      default:
        message.logger.error('message type not handled by intake');
        return 'dead-letter';
    }
    relay.nudge();
    message.logger.info({ status: verdict.status, outcome: verdict.outcome }, 'processed');
    await message.reply(IntakeVerdictV1, verdict);
    return 'ack';
  };
  return async (messages) => {
    const outcomes: HandlerOutcome[] = [];
    for (const message of messages) outcomes.push(await handleOne(message));
    return outcomes;
  };
}
