import type { ClinicAnswerSubmittedV1, IntakeVerdictV1 } from '@bedrequest/contracts';
import type { MessageMeta } from '@bedrequest/messaging';
import { taskAccess } from '../access';
import { etagOf, taskTagOf, toFhirTask, type NoteAuthor } from '../tasks';
import type { BatchState, RequestState } from './batch-state';
import { answerAgent, auditedRequest } from './request-audit';
import { DEFAULT_REQUEST_LIMITS, overNotesLimit } from './request-limits';
import { responseRecord } from './request-messages';
import { answerTask, withdrawAcceptance } from './request-state-machine';
import { erased, rejected, verdict } from './verdicts';

/**
 * A clinic's answer applied to the batch (docs/decisions.md, "Clinics answer"): not found for a
 * Task the clinic may not see (the access policy), a conflict when cancelled, revoked or out of date
 * (or, for the selected clinic's withdrawal of its acceptance, when it is not the selected one),
 * a failed precondition when the clinic's `If-Match` names a tag the Task no longer has (docs/api.md,
 * "Clinic API"). The verdict carries the Task's tag, for the answer's `ETag`.
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
  // A withdrawal of the acceptance is the selected clinic's; any other answer keeps the selection.
  const withdrawal = answer.source === 'clinic' && answer.withdrawsAcceptance ? withdrawAcceptance(state.request, task) : undefined;
  const decision = withdrawal ?? answerTask(state.request, task, answer.businessStatus);
  if (decision.kind === 'reject') return rejected('conflict', 'conflict', decision.diagnostics);
  // A clinic's note is refused over the limit; an automatic answer's is not (one per version at most: the versions bound them).
  const tooMany = answer.note && answer.source === 'clinic' ? overNotesLimit(batch.context.limits ?? DEFAULT_REQUEST_LIMITS, task.notes.length) : undefined;
  if (tooMany) return tooMany;
  // After the refusals above, as RFC 9110 §13.2.1 orders them: a precondition counts only where the
  // answer would otherwise be taken. Checked on the Task as this batch holds it, and written only onto
  // the revision it was read at, so no other answer or version can come between.
  const current = taskTagOf(task);
  if (answer.source === 'clinic' && answer.ifMatch && !answer.ifMatch.includes(current)) {
    const diagnostics = `the Task changed since it was read (a colleague answered, or the referrer sent a new version): it is now ${etagOf(current)}; read it again and answer on what it is now`;
    return { ...rejected('precondition-failed', 'conflict', diagnostics), taskTag: current };
  }
  if (withdrawal?.kind === 'apply') liftSelection(state, withdrawal.next, batch.context.now);
  // Lifted, the request no longer keeps its clinic in progress: a withdrawal's decline makes the Task
  // `rejected`, and is stored as every answer is (its note, the history, `lastModified`).
  batch.recordAnswer(state, task, withdrawal?.kind === 'apply' ? withdrawal.task.businessStatus : answer.businessStatus, answer.note, noteAuthorOf(answer));
  // Audited as an answer: the same agent and Task (the request's selection changes with it).
  batch.audit({ interaction: 'update', agent: answerAgent(answer), request: auditedRequest(state.request), resources: [{ type: 'Task', id: task.id }] });
  const response = responseRecord(state.request, task, { systems: batch.context.systems, meta, source: answer.source });
  batch.changes.outbox.push(response);
  // The clinic's reply is the Task as the clinic reads it, naming who wrote each note; routing,
  // which sent an automatic answer, gets the referrer's, without the clinic's staff.
  const forClinic = answer.source === 'clinic' && taskAccess.showsAuthors(viewer, { referrerPartyId: state.request.referrerPartyId, clinicIk: task.clinicIk });
  const reply = forClinic
    ? toFhirTask({ ...task, requestIdentifier: state.request.identifier, referrerIk: state.request.referrerIk }, batch.context.systems, { authors: true })
    : response.envelope.payload.task;
  return { ...verdict('accepted', { requestIdentifier: state.request.identifier, task: reply }), taskTag: taskTagOf(task) };
}

/**
 * The selected clinic withdrew its acceptance (request-state-machine.ts, `withdrawAcceptance`): the
 * request is a proposal again, without a new version. Its latest bundle no longer describes its
 * state, so that bundle sent again is decided anew rather than taken as a retry (docs/decisions.md,
 * "Requests"): a selection of this clinic after its new `accepted` is not lost as "unchanged".
 */
function liftSelection(state: RequestState, next: Extract<ReturnType<typeof withdrawAcceptance>, { kind: 'apply' }>['next'], now: Date): void {
  Object.assign(state.request, { ...next, latestHash: '', updatedAt: now });
  state.changed = true;
}

/**
 * Who gave the answer, as its note keeps it (docs/data-protection.md, "Staff"): the clinic's person
 * by user id and display name (on one line, without control characters, which a FHIR string may
 * not hold), or no person for the service's automatic answer.
 */
function noteAuthorOf(answer: ClinicAnswerSubmittedV1): NoteAuthor {
  if (answer.source === 'automatic') return { source: 'automatic' };
  // eslint-disable-next-line no-control-regex -- removing the control characters is the point
  const name = answer.userName?.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return { source: 'clinic', user: answer.user, ...(name ? { name } : {}) };
}
