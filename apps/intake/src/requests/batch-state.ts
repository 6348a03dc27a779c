import { randomUUID } from 'node:crypto';
import type { AdmissionRequestSummary, BusinessStatus, ClinicRecord, Submitter } from '@bedrequest/contracts';
import type { FhirSystems } from '@bedrequest/fhir-model';
import { answerStatisticOf } from '../answer-statistics';
import { entriesOf, type AuditRecord } from '../audit';
import { appendedHistory, type NoteAuthor, type StoredHistoryEntry } from '../tasks';
import type { BatchChanges, StoredDocumentHash, StoredRequest, StoredTask } from './request-records';
import type { AnswerDeadlineRule } from '../deadlines';
import type { RequestLimits } from './request-limits';
import { answerTask, type TaskChange } from './request-state-machine';

/** A request of the batch: as loaded (or created), and what the batch did to it. */
export interface RequestState {
  request: StoredRequest;
  tasks: StoredTask[];
  isNew: boolean;
  changed: boolean;
  /** The version as read (0 for a request this batch creates). */
  readVersion: number;
}

/** What every decision of a batch is made with: the registry's clinics, the FHIR systems, the batch's instant and the request limits. */
export interface BatchContext {
  clinics: ReadonlyMap<string, ClinicRecord>;
  systems: FhirSystems;
  now: Date;
  limits?: RequestLimits;
  /** The default answer deadline of a party's new request (docs/api.md, "Answer deadlines"): its settings, or the service's. */
  answerDeadlineRule?: (partyId: string) => AnswerDeadlineRule | undefined;
}

/**
 * The state of one batch in memory: the requests its messages touch with their Tasks and the
 * fingerprints of their documents, loaded up front, and everything the batch changes, collected in
 * the order it happens until `result()` hands it to the repository, which writes it in one statement.
 */
export class BatchState {
  private readonly byIdentifier = new Map<string, RequestState>();
  private readonly taskById = new Map<string, { task: StoredTask; state: RequestState }>();
  /** The hashes of the documents stored for each request (by request id), as loaded, and those this batch adds. */
  private readonly storedDocuments = new Map<string, string[]>();
  readonly changes: Omit<BatchChanges, 'createdRequests' | 'changedRequests' | 'tasks'> = { inbox: [], versions: [], documents: [], outbox: [], audit: [] };
  private readonly changedTasks = new Set<StoredTask>();
  /** Tasks this batch created: inserted, not guarded. */
  private readonly createdTasks = new Set<StoredTask>();

  constructor(
    loaded: { requests: StoredRequest[]; tasks: StoredTask[]; documents: readonly StoredDocumentHash[] },
    readonly context: BatchContext,
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
    for (const document of loaded.documents) this.storedDocuments.set(document.requestId, [...this.documentHashes(document.requestId), document.hash]);
  }

  request(identifier: string): RequestState | undefined {
    return this.byIdentifier.get(identifier);
  }

  task(taskId: string): { task: StoredTask; state: RequestState } | undefined {
    return this.taskById.get(taskId);
  }

  documentHashes(requestId: string): string[] {
    return this.storedDocuments.get(requestId) ?? [];
  }

  addDocumentHash(requestId: string, hash: string): void {
    this.storedDocuments.set(requestId, [...this.documentHashes(requestId), hash]);
  }

  result(): BatchChanges {
    const states = [...this.byIdentifier.values()];
    return {
      ...this.changes,
      createdRequests: states.filter((state) => state.isNew).map((state) => state.request),
      changedRequests: states.filter((state) => !state.isNew && state.changed).map((state) => ({ ...state.request, expectedVersion: state.readVersion })),
      tasks: [...this.changedTasks].map((task) => ({ ...task, referrerPartyId: this.taskById.get(task.id)!.state.request.referrerPartyId })),
    };
  }

  createRequest(submitted: AdmissionRequestSummary, submitter: Submitter): RequestState {
    const { now } = this.context;
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

  /** A Task as the state machine's change leaves it: created for a clinic named anew, and sent the version when the change sends it. */
  applyTaskChange(state: RequestState, change: TaskChange, version: number): StoredTask {
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
      history: [],
      documentsSuppliedAt: null,
      answerDeadline: state.request.answerDeadline ?? null,
      overdueSince: null,
      overdueDeadline: null,
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
    if (change.status === 'cancelled') task.documentsSuppliedAt = null;
    if (change.status !== 'requested') task.overdueSince = null;
    this.addHistory(task, { kind: 'request', at: now.toISOString(), action: change.action, status: change.status, ...(change.send ? { version } : {}) });
    this.markChanged(task);
    return task;
  }

  /** A clinic's answer on the Task; its note, if any, keeps who wrote it (`author`). */
  recordAnswer(state: RequestState, task: StoredTask, businessStatus: BusinessStatus, note: string | undefined, author: NoteAuthor): void {
    const decision = answerTask(state.request, task, businessStatus);
    if (decision.kind === 'reject') return;
    const { now } = this.context;
    // Before the history takes this answer: only a Task's first answer counts (docs/architecture.md, "Answer statistics").
    const statistic = answerStatisticOf(task, businessStatus, author, now);
    if (statistic) (this.changes.answerStatistics ??= []).push(statistic);
    task.status = decision.status;
    task.businessStatus = businessStatus;
    if (note) task.notes = [...task.notes, { text: note, time: now.toISOString(), author }];
    // Every answer is kept in the history, its note named by position (tasks/task-history.ts).
    this.addHistory(task, { kind: 'answer', at: now.toISOString(), businessStatus, author, ...(note ? { note: task.notes.length - 1 } : {}) });
    task.documentsSuppliedAt = null;
    // Answered: no longer waiting, so no longer overdue (docs/api.md, "Answer deadlines").
    task.overdueSince = null;
    task.lastModified = now;
    this.markChanged(task);
  }

  /**
   * The request's answer deadline moved (docs/api.md, "Answer deadlines"): every Task carries the new
   * one, and one marked overdue loses the mark when the new deadline lies ahead.
   */
  moveAnswerDeadline(state: RequestState, deadline: Date): void {
    const { now } = this.context;
    state.request.answerDeadline = deadline;
    for (const task of state.tasks) {
      if (task.answerDeadline?.getTime() === deadline.getTime()) continue;
      task.answerDeadline = deadline;
      if (task.overdueSince && deadline > now) task.overdueSince = null;
      task.lastModified = now;
      this.markChanged(task);
    }
  }

  /** Documents delivered to a Task (document-submission.ts): its new status, the mark when they reopened it, and their history entry. */
  recordDocuments(task: StoredTask, delivery: { status: StoredTask['status']; reopened: boolean; count: number; kinds: string[] }): void {
    const { now } = this.context;
    task.status = delivery.status;
    if (delivery.reopened) task.documentsSuppliedAt = now;
    if (delivery.status !== 'requested') task.overdueSince = null;
    const kinds = delivery.kinds.length ? { kinds: delivery.kinds } : {};
    this.addHistory(task, { kind: 'documents', at: now.toISOString(), count: delivery.count, ...kinds, reopened: delivery.reopened });
    task.lastModified = now;
    this.markChanged(task);
  }

  /** An entry appended to the Task's history (tasks/task-history.ts), within its limit. */
  addHistory(task: StoredTask, entry: StoredHistoryEntry): void {
    task.history = appendedHistory(task.history ?? [], entry);
  }

  /** An audit entry of a change, recorded at the batch's instant, written with the batch. */
  audit(record: Omit<AuditRecord, 'source'>): void {
    this.changes.audit.push(...entriesOf([{ ...record, source: 'intake' }], this.context.now));
  }

  /** The name and departments of a registered clinic, for the automatic decline and its note. */
  registered(ik: string): { name: string; departments: string[] } | undefined {
    const clinic = this.context.clinics.get(ik);
    return clinic && { name: clinic.name, departments: clinic.departments.map((department) => department.code) };
  }

  /** A stored Task's revision goes up once per batch, however often the batch changes it. */
  private markChanged(task: StoredTask): void {
    if (this.changedTasks.has(task)) return;
    if (!this.createdTasks.has(task)) task.revision += 1;
    this.changedTasks.add(task);
  }
}
