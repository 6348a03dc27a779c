import { randomUUID } from 'node:crypto';
import { declineNote, declineReason } from '@bedrequest/clinic-directory';
import type {
  AdmissionRequestSummary,
  BusinessStatus,
  ClinicAnswerSubmittedV1,
  ClinicRecord,
  IntakeVerdictV1,
  RequestDispatchedV1,
  Submitter,
} from '@bedrequest/contracts';
import type { FhirSystems } from '@bedrequest/fhir-model';
import type { MessageMeta, OutboxRecord } from '@bedrequest/messaging';
import type { AuditRecord } from '../audit/audit-event';
import { entriesOf } from '../audit/audit-trail.service';
import type { FingerprintedCommand } from './intake-commands';
import { answerAgent, auditedRequest, referrerAgent } from './request-audit';
import { dispatchedRecord, responseRecord } from './request-messages';
import type { BatchChanges, StoredDocumentHash, StoredRequest, StoredTask } from './request-records';
import { DEFAULT_REQUEST_LIMITS, overLimit, overNotesLimit, type RequestHoldings, type RequestLimits } from './request-limits';
import { answerTask, decide, type TaskChange } from './request-state-machine';
import { erased, rejected, verdict } from './verdicts';

interface RequestState {
  request: StoredRequest;
  tasks: StoredTask[];
  isNew: boolean;
  changed: boolean;
  /** The version as read (0 for a request this batch creates). */
  readVersion: number;
}

/**
 * The unit of work of one batch of intake's messages: the requests they touch, loaded and locked
 * up front, then every message applied in the order it arrived, in memory: two bundles for the same
 * request in one batch apply one after the other, exactly as if they had come in two batches.
 * `changes()` is what the batch writes. Decisions come from the pure state machine.
 */
export class RequestBatch {
  private readonly byIdentifier = new Map<string, RequestState>();
  private readonly taskById = new Map<string, { task: StoredTask; state: RequestState }>();
  /** The hashes of the documents stored for each request (by request id), as loaded, and those this batch adds. */
  private readonly storedDocuments = new Map<string, string[]>();
  private readonly changes: Omit<BatchChanges, 'createdRequests' | 'changedRequests' | 'tasks'> = {
    inbox: [],
    versions: [],
    documents: [],
    outbox: [],
    audit: [],
  };
  private readonly changedTasks = new Set<StoredTask>();
  /** Tasks this batch created: inserted, not guarded. */
  private readonly createdTasks = new Set<StoredTask>();

  constructor(
    loaded: { requests: StoredRequest[]; tasks: StoredTask[]; documents: readonly StoredDocumentHash[] },
    private readonly context: { clinics: ReadonlyMap<string, ClinicRecord>; systems: FhirSystems; now: Date; limits?: RequestLimits },
  ) {
    const byId = new Map<string, RequestState>();
    for (const request of loaded.requests) {
      const state: RequestState = { request, tasks: [], isNew: false, changed: false, readVersion: request.currentVersion };
      this.byIdentifier.set(request.identifier, state);
      byId.set(request.id, state);
    }
    for (const task of loaded.tasks) {
      const state = byId.get(task.requestId);
      if (!state) continue;
      state.tasks.push(task);
      this.taskById.set(task.id, { task, state });
    }
    for (const document of loaded.documents) {
      this.storedDocuments.set(document.requestId, [...(this.storedDocuments.get(document.requestId) ?? []), document.hash]);
    }
  }

  /** Applies one message and returns its verdict (also recorded in the inbox), as the reply carries it. */
  apply(command: FingerprintedCommand): IntakeVerdictV1 {
    const result = this.decideAndApply(command);
    this.changes.inbox.push({ messageId: command.meta.messageId, messageType: command.meta.messageType, verdict: result });
    return result;
  }

  result(): BatchChanges {
    const states = [...this.byIdentifier.values()];
    return {
      ...this.changes,
      createdRequests: states.filter((state) => state.isNew).map((state) => state.request),
      changedRequests: states.filter((state) => !state.isNew && state.changed).map((state) => ({ ...state.request, expectedVersion: state.readVersion })),
      tasks: [...this.changedTasks],
    };
  }

  private decideAndApply(command: FingerprintedCommand): IntakeVerdictV1 {
    switch (command.kind) {
      case 'admission':
        return this.submitAdmissionRequest(command);
      case 'document':
        return this.submitDocument(command);
      case 'answer':
        return this.answer(command.answer, command.meta);
    }
  }

  private submitAdmissionRequest(command: Extract<FingerprintedCommand, { kind: 'admission' }>): IntakeVerdictV1 {
    const { request: submitted, submitter, meta } = command;
    const existing = this.byIdentifier.get(submitted.identifier);
    if (existing && existing.request.referrerPartyId !== submitter.partyId) {
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
      const refusal = overLimit(this.context.limits ?? DEFAULT_REQUEST_LIMITS, holdingsOf(existing.request), {
        kind: 'version',
        bytes: command.fingerprint.bytes,
      });
      if (refusal) return refusal;
    }

    const { now } = this.context;
    const state = existing ?? this.createRequest(submitted, submitter, now);
    const version = state.request.currentVersion + 1;
    const hash = command.fingerprint.value;
    Object.assign(state.request, {
      ...decision.next,
      currentVersion: version,
      latestHash: hash,
      updatedAt: now,
      storedBytes: state.request.storedBytes + command.fingerprint.bytes,
    });
    state.changed = true;
    this.changes.versions.push({
      requestId: state.request.id,
      version,
      bundle: command.bundle,
      canonicalHash: hash,
      messageId: meta.messageId,
      receivedAt: now,
      sentTo: decision.tasks.filter((change) => change.send).map((change) => change.clinicIk),
    });

    this.audit({
      interaction: version === 1 ? 'create' : 'update',
      agent: referrerAgent(submitter, state.request),
      request: { ...auditedRequest(state.request, version), change: decision.change },
    });

    const dispatched: RequestDispatchedV1['tasks'] = [];
    const responses: OutboxRecord[] = [];
    for (const change of decision.tasks) {
      const task = this.applyTaskChange(state, change, version);
      // docs/decisions.md: a requested clinic that does not offer the resolved department is declined
      // at once, in this transaction, instead of asking routing and waiting for its answer.
      const reason = change.action === 'answer-requested' ? declineReason(this.registered(task.clinicIk), submitted.departmentCode) : undefined;
      if (reason) {
        this.recordAnswer(state, task, 'declined', declineNote(reason, task.clinicIk, submitted));
        responses.push(responseRecord(state.request, task, { systems: this.context.systems, meta, source: 'automatic' }));
        this.audit({
          interaction: 'update',
          agent: { kind: 'service', service: 'intake' },
          request: auditedRequest(state.request),
          resources: [{ type: 'Task', id: task.id }],
        });
      }
      dispatched.push({ taskId: task.id, clinicIk: task.clinicIk, action: change.action, ...(reason ? { declined: reason } : {}) });
    }
    this.changes.outbox.push(dispatchedRecord(submitted, submitter, { version, change: decision.change, tasks: dispatched }, meta), ...responses);
    return verdict('accepted', { requestIdentifier: submitted.identifier });
  }

  private submitDocument(command: Extract<FingerprintedCommand, { kind: 'document' }>): IntakeVerdictV1 {
    const state = this.byIdentifier.get(command.requestIdentifier);
    // docs/decisions.md: "a document for an unknown or foreign request is 404/403".
    if (!state) return rejected('not-found', 'not-found', 'there is no request with this identifier');
    if (state.request.referrerPartyId !== command.submitter.partyId) return rejected('forbidden', 'forbidden', 'the request belongs to another referrer');
    if (state.request.erased) return erased();
    // docs/decisions.md: further bundles for a revoked identifier are rejected with 409, documents too.
    if (state.request.status === 'revoked') return rejected('conflict', 'conflict', 'the request was revoked; no further bundles are accepted for it');
    const stored = this.storedDocuments.get(state.request.id) ?? [];
    if (stored.includes(command.fingerprint.value)) return verdict('unchanged', { requestIdentifier: command.requestIdentifier });
    const refusal = overLimit(this.context.limits ?? DEFAULT_REQUEST_LIMITS, holdingsOf(state.request), { kind: 'document', bytes: command.fingerprint.bytes });
    if (refusal) return refusal;
    state.request.documentCount += 1;
    state.request.storedBytes += command.fingerprint.bytes;
    this.storedDocuments.set(state.request.id, [...stored, command.fingerprint.value]);
    const id = randomUUID();
    this.audit({
      interaction: 'create',
      agent: referrerAgent(command.submitter, state.request),
      request: auditedRequest(state.request),
      resources: [{ type: 'DocumentBundle', id }],
    });
    this.changes.documents.push({
      id,
      requestId: state.request.id,
      bundle: command.bundle,
      canonicalHash: command.fingerprint.value,
      messageId: command.meta.messageId,
      receivedAt: this.context.now,
      expectedVersion: state.isNew ? null : state.readVersion,
    });
    return verdict('accepted', { requestIdentifier: command.requestIdentifier });
  }

  /** A clinic's answer (docs/decisions.md, "Clinics answer"): not found for another clinic's Task, a conflict when cancelled or revoked. */
  private answer(answer: ClinicAnswerSubmittedV1, meta: MessageMeta): IntakeVerdictV1 {
    const found = this.taskById.get(answer.taskId);
    if (!found || found.task.clinicIk !== answer.clinicIk) return rejected('not-found', 'not-found', 'no such Task for this clinic');
    const { task, state } = found;
    if (state.request.erased) return erased();
    // An automatic answer computed for an older version of the request is out of date.
    if (answer.source === 'automatic' && answer.answersVersion < task.sentVersion) {
      return rejected('conflict', 'conflict', 'the answer refers to an older version of the request');
    }
    const decision = answerTask(state.request, task, answer.businessStatus);
    if (decision.kind === 'reject') return rejected('conflict', 'conflict', decision.diagnostics);
    // A clinic's note is refused over the limit; an automatic answer's is not (one per version at most: the versions bound them).
    const tooMany = answer.note && answer.source === 'clinic' ? overNotesLimit(this.context.limits ?? DEFAULT_REQUEST_LIMITS, task.notes.length) : undefined;
    if (tooMany) return tooMany;
    this.recordAnswer(state, task, answer.businessStatus, answer.note);
    this.audit({ interaction: 'update', agent: answerAgent(answer), request: auditedRequest(state.request), resources: [{ type: 'Task', id: task.id }] });
    const response = responseRecord(state.request, task, { systems: this.context.systems, meta, source: answer.source });
    this.changes.outbox.push(response);
    return verdict('accepted', { requestIdentifier: state.request.identifier, task: response.envelope.payload.task });
  }

  private createRequest(submitted: AdmissionRequestSummary, submitter: Submitter, now: Date): RequestState {
    const request: StoredRequest = {
      id: randomUUID(),
      identifier: submitted.identifier,
      referrerPartyId: submitter.partyId,
      referrerIk: submitted.requesterIk,
      status: 'active',
      intent: 'proposal',
      selectedClinicIk: null,
      currentVersion: 0,
      latestHash: '',
      createdAt: now,
      updatedAt: now,
      documentCount: 0,
      storedBytes: 0,
    };
    const state: RequestState = { request, tasks: [], isNew: true, changed: true, readVersion: 0 };
    this.byIdentifier.set(request.identifier, state);
    return state;
  }

  private applyTaskChange(state: RequestState, change: TaskChange, version: number): StoredTask {
    const { now } = this.context;
    const existing = change.taskId ? this.taskById.get(change.taskId)?.task : undefined;
    const task: StoredTask = existing ?? {
      id: randomUUID(),
      requestId: state.request.id,
      clinicIk: change.clinicIk,
      status: change.status,
      businessStatus: null,
      notes: [],
      sentVersion: version,
      authoredOn: now,
      lastModified: now,
      cancelledAt: null,
      revision: 0,
    };
    if (!existing) {
      state.tasks.push(task);
      this.taskById.set(task.id, { task, state });
      this.createdTasks.add(task);
    }
    task.status = change.status;
    task.lastModified = now;
    task.cancelledAt = change.status === 'cancelled' ? now : null;
    if (change.clearBusinessStatus) task.businessStatus = null;
    if (change.send) task.sentVersion = version;
    this.markChanged(task);
    return task;
  }

  private recordAnswer(state: RequestState, task: StoredTask, businessStatus: BusinessStatus, note: string | undefined): void {
    const decision = answerTask(state.request, task, businessStatus);
    if (decision.kind === 'reject') return;
    const { now } = this.context;
    task.status = decision.status;
    task.businessStatus = businessStatus;
    if (note) task.notes = [...task.notes, { text: note, time: now.toISOString() }];
    task.lastModified = now;
    this.markChanged(task);
  }

  /** A stored Task's revision goes up once per batch, however often the batch changes it. */
  private markChanged(task: StoredTask): void {
    if (this.changedTasks.has(task)) return;
    if (!this.createdTasks.has(task)) task.revision += 1;
    this.changedTasks.add(task);
  }

  /** An audit entry of a change, recorded at the batch's instant, written with the batch. */
  private audit(record: Omit<AuditRecord, 'source'>): void {
    this.changes.audit.push(...entriesOf([{ ...record, source: 'intake' }], this.context.now));
  }

  private registered(ik: string): { departments: string[] } | undefined {
    const clinic = this.context.clinics.get(ik);
    return clinic && { departments: clinic.departments.map((department) => department.code) };
  }
}

function holdingsOf(request: StoredRequest): RequestHoldings {
  return { versions: request.currentVersion, documents: request.documentCount, bytes: request.storedBytes };
}
