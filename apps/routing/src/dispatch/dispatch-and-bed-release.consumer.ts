import { handleByType, type BatchHandler, type OutboxRelay } from '@bedrequest/messaging';
import type { Logger } from 'pino';
import { routingCommands, type ClinicDispatchService } from './clinic-dispatch.service';

/**
 * The routing queue's handler, for its three message types: request.dispatched.v1 fans a request out
 * to its clinics, admission.response.v1 gives back the bed of a declined Task, request.erased.v1
 * erases what routing keeps of a request (its held beds go back as a decline's do, so erasures share
 * the batch, its inbox and its guarded write); a batch in one transaction, then the
 * outbox relay is woken so that automatic answers leave at once, then the messages are acked. A
 * thrown error (database unavailable, deadlock) fails the batch, which the broker then splits.
 */
export function dispatchAndBedReleaseHandler(service: ClinicDispatchService, relay: Pick<OutboxRelay, 'nudge'>, logger: Logger): BatchHandler {
  return handleByType(routingCommands, async (commands, messages) => {
    const result = await service.handle(commands);
    if (result.answers > 0) relay.nudge();
    // The notification log is in the database (clinic_notification); here one line per batch, with
    // ids, IKs and codes only, never patient data.
    if (result.notifications.length > 0 || result.released.length > 0 || result.erased > 0 || result.ignoredErased > 0 || result.duplicates > 0) {
      const outcomesByKind: Record<string, number> = {};
      for (const entry of result.notifications) outcomesByKind[entry.outcome] = (outcomesByKind[entry.outcome] ?? 0) + 1;
      logger.info(
        {
          messages: messages.length,
          notified: result.notifications.length,
          outcomes: outcomesByKind,
          bedsReleased: result.released,
          erased: result.erased,
          dispatchesOfErasedIgnored: result.ignoredErased,
          duplicates: result.duplicates,
        },
        'batch routed',
      );
    }
    for (const entry of result.notifications) {
      logger.debug(
        {
          taskId: entry.taskId,
          clinicIk: entry.clinicIk,
          requestVersion: entry.requestVersion,
          change: entry.change,
          action: entry.action,
          outcome: entry.outcome,
          answer: entry.answer,
        },
        'clinic notified',
      );
    }
  });
}
