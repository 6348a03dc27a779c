import { declineNote, declineReason } from '@bedrequest/clinic-directory';
import type { IntakeVerdictV1, RequestDispatchedV1 } from '@bedrequest/contracts';
import type { OutboxRecord } from '@bedrequest/messaging';
import { ownsRequest } from '../access';
import { answerDeadlineExpression, decideAnswerDeadline, SERVICE_DEADLINE_RULE } from '../deadlines';
import type { BatchState } from './batch-state';
import type { FingerprintedCommand } from './intake-commands';
import { auditedRequest, referrerAgent, senderOf } from './request-audit';
import { dispatchedRecord, responseRecord } from './request-messages';
import { DEFAULT_REQUEST_LIMITS, holdingsOf, overLimit } from './request-limits';
import { decide } from './request-state-machine';
import { erased, rejected, verdict } from './verdicts';

/**
 * An AdmissionRequestBundle applied to the batch (docs/decisions.md, "Requests"): refused for
 * another referrer's identifier, an erased request, or what the state machine refuses; otherwise
 * the new version, its Tasks as the state machine changes them, the automatic declines, the audit
 * entry and the messages it causes.
 */
export function submitAdmissionRequest(batch: BatchState, command: Extract<FingerprintedCommand, { kind: 'admission' }>): IntakeVerdictV1 {
  const { request: submitted, submitter, meta } = command;
  const existing = batch.request(submitted.identifier);
  if (existing && !ownsRequest(submitter.partyId, existing.request)) {
    return rejected('forbidden', 'forbidden', 'this request identifier belongs to another referrer');
  }
  if (existing?.request.erased) return erased();
  const decision = decide(existing && { ...existing.request, tasks: existing.tasks }, {
    fingerprint: command.fingerprint,
    status: submitted.status,
    intent: submitted.intent,
    orderDetail: submitted.orderDetail,
    performerIks: submitted.performerIks,
    patient: submitted.patient,
  });
  if (decision.kind === 'reject') return rejected(decision.refusal, decision.code, decision.diagnostics);
  if (decision.kind === 'unchanged') return verdict('unchanged', { requestIdentifier: submitted.identifier });
  // Only a supplement is refused for what the request holds (request-limits.ts).
  if (existing && decision.change === 'supplemented') {
    const refusal = overLimit(batch.context.limits ?? DEFAULT_REQUEST_LIMITS, holdingsOf(existing.request), {
      kind: 'version',
      bytes: command.fingerprint.bytes,
    });
    if (refusal) return refusal;
  }

  const { now, systems } = batch.context;
  const deadline = decideAnswerDeadline({
    held: existing?.request.answerDeadline,
    isNew: !existing,
    given: submitted.answerDeadline,
    revoked: submitted.status === 'revoked',
    now,
    rule: () => batch.context.answerDeadlineRule?.(submitter.partyId) ?? SERVICE_DEADLINE_RULE,
  });
  if (deadline.kind === 'refuse') {
    const expression = answerDeadlineExpression(command.bundle, systems);
    return {
      ...rejected('invalid', 'value', deadline.diagnostics),
      issues: [{ code: 'value', diagnostics: deadline.diagnostics, ...(expression ? { expression } : {}) }],
    };
  }
  const state = existing ?? batch.createRequest(submitted, submitter);
  // Before the Tasks change: a Task created by this version carries the deadline too.
  if (deadline.kind === 'set') batch.moveAnswerDeadline(state, deadline.deadline);
  const version = state.request.currentVersion + 1;
  const hash = command.fingerprint.value;
  Object.assign(state.request, {
    ...decision.next,
    currentVersion: version,
    latestHash: hash,
    latestContentHash: command.fingerprint.content ?? null,
    updatedAt: now,
    storedBytes: state.request.storedBytes + command.fingerprint.bytes,
  });
  state.changed = true;
  batch.changes.versions.push({
    requestId: state.request.id,
    version,
    bundle: command.bundle,
    canonicalHash: hash,
    messageId: meta.messageId,
    receivedAt: now,
    sentTo: decision.tasks.filter((change) => change.send).map((change) => change.clinicIk),
    submittedBy: senderOf(submitter),
  });
  batch.audit({
    interaction: version === 1 ? 'create' : 'update',
    agent: referrerAgent(submitter, state.request),
    request: { ...auditedRequest(state.request, version), change: decision.change },
  });

  const dispatched: RequestDispatchedV1['tasks'] = [];
  const responses: OutboxRecord[] = [];
  for (const change of decision.tasks) {
    const task = batch.applyTaskChange(state, change, version);
    // For the answer statistics, which count per department (docs/architecture.md, "Answer statistics").
    if (submitted.departmentCode) task.departmentCode = submitted.departmentCode;
    // docs/decisions.md: a requested clinic that does not offer the resolved department is declined
    // at once, in this transaction, instead of asking routing and waiting for its answer.
    const registered = batch.registered(task.clinicIk);
    const reason = change.action === 'answer-requested' ? declineReason(registered, submitted.departmentCode) : undefined;
    if (reason) {
      batch.recordAnswer(state, task, 'declined', declineNote(reason, { ik: task.clinicIk, name: registered?.name }, submitted), { source: 'automatic' });
      responses.push(responseRecord(state.request, task, { systems, meta, source: 'automatic' }));
      batch.audit({
        interaction: 'update',
        agent: { kind: 'service', service: 'intake' },
        request: auditedRequest(state.request),
        resources: [{ type: 'Task', id: task.id }],
      });
    }
    dispatched.push({ taskId: task.id, clinicIk: task.clinicIk, action: change.action, ...(reason ? { declined: reason } : {}) });
  }
  batch.changes.outbox.push(dispatchedRecord(submitted, submitter, { version, change: decision.change, tasks: dispatched }, meta), ...responses);
  return verdict('accepted', { requestIdentifier: submitted.identifier });
}
