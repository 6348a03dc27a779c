import type { ClinicAnswerSubmittedV1, IntakeVerdictV1 } from '@bedrequest/contracts';
import type { MessageMeta } from '@bedrequest/messaging';
import { taskAccess } from '../access';
import type { BatchState } from './batch-state';
import { answerAgent, auditedRequest } from './request-audit';
import { DEFAULT_REQUEST_LIMITS, overNotesLimit } from './request-limits';
import { responseRecord } from './request-messages';
import { answerTask } from './request-state-machine';
import { erased, rejected, verdict } from './verdicts';

/**
 * A clinic's answer applied to the batch (docs/decisions.md, "Clinics answer"): not found for a
 * Task the clinic may not see (the access policy), a conflict when cancelled, revoked or out of date.
 */
export function answerTaskOf(batch: BatchState, answer: ClinicAnswerSubmittedV1, meta: MessageMeta): IntakeVerdictV1 {
  const found = batch.task(answer.taskId);
  const viewer = { role: 'clinic', ikNumbers: [answer.clinicIk] } as const;
  if (!found || !taskAccess.allows(viewer, { referrerPartyId: found.state.request.referrerPartyId, clinicIk: found.task.clinicIk })) {
    return rejected('not-found', 'not-found', 'no such Task for this clinic');
  }
  const { task, state } = found;
  if (state.request.erased) return erased();
  // An automatic answer computed for an older version of the request is out of date.
  if (answer.source === 'automatic' && answer.answersVersion < task.sentVersion) {
    return rejected('conflict', 'conflict', 'the answer refers to an older version of the request');
  }
  const decision = answerTask(state.request, task, answer.businessStatus);
  if (decision.kind === 'reject') return rejected('conflict', 'conflict', decision.diagnostics);
  // A clinic's note is refused over the limit; an automatic answer's is not (one per version at most: the versions bound them).
  const tooMany = answer.note && answer.source === 'clinic' ? overNotesLimit(batch.context.limits ?? DEFAULT_REQUEST_LIMITS, task.notes.length) : undefined;
  if (tooMany) return tooMany;
  batch.recordAnswer(state, task, answer.businessStatus, answer.note);
  batch.audit({ interaction: 'update', agent: answerAgent(answer), request: auditedRequest(state.request), resources: [{ type: 'Task', id: task.id }] });
  const response = responseRecord(state.request, task, { systems: batch.context.systems, meta, source: answer.source });
  batch.changes.outbox.push(response);
  return verdict('accepted', { requestIdentifier: state.request.identifier, task: response.envelope.payload.task });
}
