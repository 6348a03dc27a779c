import type {
  AdmissionRequestSummary,
  BusinessStatus,
  DispatchAction,
  OrderDetailCode,
  RequestChange,
  ServiceRequestIntent,
  ServiceRequestStatus,
  TaskStatus,
  VerdictRefusal,
} from '@bedrequest/contracts';
import type { BundleFingerprint } from './bundle-fingerprint';

/**
 * The request state machine of the spec ("States and transitions") with the choices of
 * docs/decisions.md ("Requests", "Tasks"). Pure: it decides, the service applies. Its refusals are
 * domain outcomes; the gateway chooses the HTTP answer.
 */

export interface TaskState {
  id: string;
  clinicIk: string;
  status: TaskStatus;
  businessStatus: BusinessStatus | null;
  /** Set when the party's rule asked the clinic (deadlines/escalation.ts): no version named it. */
  askedByRule?: object | null;
}

export interface RequestState {
  status: ServiceRequestStatus;
  intent: ServiceRequestIntent;
  selectedClinicIk: string | null;
  latestHash: string;
  /** The latest version's fingerprint without its clinics (bundle-fingerprint.ts); none before it was kept. */
  latestContentHash?: string | null;
  tasks: readonly TaskState[];
}

/** What the state machine needs to know of a valid incoming AdmissionRequestBundle. */
export interface Submission {
  fingerprint: BundleFingerprint;
  status: ServiceRequestStatus;
  intent: ServiceRequestIntent;
  orderDetail: OrderDetailCode | undefined;
  performerIks: readonly string[];
  patient: AdmissionRequestSummary['patient'];
}

/**
 * What happens to one clinic's Task. `taskId` is absent for a Task to create. `send` means the
 * clinic is sent the new version (it may then read it); `action` is what routing tells the clinic.
 */
export interface TaskChange {
  clinicIk: string;
  taskId?: string;
  status: TaskStatus;
  clearBusinessStatus: boolean;
  send: boolean;
  action: DispatchAction;
}

/**
 * A refused bundle: `conflict` when the request's state does not allow it, `invalid` when the
 * bundle itself breaks a rule; `code` is the issue type the referrer reads (`required` for missing
 * patient data).
 */
export interface Refusal {
  kind: 'reject';
  refusal: Extract<VerdictRefusal, 'conflict' | 'invalid'>;
  code: 'conflict' | 'invalid' | 'required';
  diagnostics: string;
}

export type Decision =
  | Refusal
  | { kind: 'unchanged' }
  | {
      kind: 'apply';
      change: RequestChange;
      next: { status: ServiceRequestStatus; intent: ServiceRequestIntent; selectedClinicIk: string | null };
      tasks: TaskChange[];
    };

const conflict = (diagnostics: string): Refusal => ({ kind: 'reject', refusal: 'conflict', code: 'conflict', diagnostics });
const invalid = (diagnostics: string, code: 'invalid' | 'required' = 'invalid'): Refusal => ({ kind: 'reject', refusal: 'invalid', code, diagnostics });

export function decide(current: RequestState | undefined, submission: Submission): Decision {
  if (!current) return decideNew(submission);
  // docs/decisions.md: an identical bundle is a retry of the same transmission, a repeated revocation too.
  if (submission.fingerprint.value === current.latestHash) return { kind: 'unchanged' };
  // docs/decisions.md: "further bundles for a revoked identifier are rejected with 409".
  if (current.status === 'revoked') return conflict('the request was revoked; no further bundles are accepted for it');
  // Spec: "revoked takes precedence over every other field: the bundle is always treated as cancellation."
  if (submission.status === 'revoked') return revoke(current);
  if (submission.orderDetail === 'selected-provider-cancelled') return withdrawSelection(current, submission);
  if (submission.orderDetail === 'selected-provider') return selectProvider(current, submission);
  if (submission.intent === 'order') {
    return invalid('intent "order" needs an orderDetail code (selected-provider or selected-provider-cancelled)');
  }
  return supplement(current, submission);
}

function decideNew(submission: Submission): Decision {
  if (submission.status === 'revoked') return conflict('there is no request with this identifier to revoke');
  if (submission.intent === 'order' || submission.orderDetail) {
    return conflict('there is no request with this identifier: a new request starts with intent "proposal"');
  }
  return {
    kind: 'apply',
    change: 'created',
    next: { status: 'active', intent: 'proposal', selectedClinicIk: null },
    tasks: unique(submission.performerIks).map((clinicIk) => ({
      clinicIk,
      status: 'requested',
      clearBusinessStatus: true,
      send: true,
      action: 'answer-requested',
    })),
  };
}

/**
 * Every Task that is not cancelled yet is cancelled, and routing tells its clinic. The clinic keeps
 * reading the version it was sent before (docs/decisions.md: "never a later one"); the revocation bundle
 * itself may carry complete patient data it never received.
 */
function revoke(current: RequestState): Decision {
  return {
    kind: 'apply',
    change: 'revoked',
    next: { status: 'revoked', intent: current.intent, selectedClinicIk: null },
    tasks: current.tasks
      .filter((task) => task.status !== 'cancelled')
      .map((task) => ({ clinicIk: task.clinicIk, taskId: task.id, status: 'cancelled', clearBusinessStatus: false, send: false, action: 'cancelled' })),
  };
}

/**
 * Selection (spec: active/proposal → active/order): only a clinic whose latest answer is
 * `accepted`, with complete patient data; the other clinics' Tasks are cancelled.
 */
function selectProvider(current: RequestState, submission: Submission): Decision {
  if (submission.intent !== 'order') {
    return invalid('orderDetail "selected-provider" needs intent "order"');
  }
  if (current.intent === 'order') {
    return conflict(`clinic ${current.selectedClinicIk} is already selected; withdraw that selection first`);
  }
  if (submission.performerIks.length !== 1) {
    return invalid('a selection names exactly one performer: the selected clinic');
  }
  if (submission.patient !== 'complete') {
    return invalid('complete patient data (name.family, not masked) are required to select a clinic', 'required');
  }
  const selected = submission.performerIks[0]!;
  const task = current.tasks.find((candidate) => candidate.clinicIk === selected);
  if (!task || task.status === 'cancelled' || task.businessStatus !== 'accepted') {
    return conflict(`clinic ${selected} cannot be selected: its latest answer is not "accepted"`);
  }
  return {
    kind: 'apply',
    change: 'selected',
    next: { status: 'active', intent: 'order', selectedClinicIk: selected },
    tasks: current.tasks
      .filter((other) => other.status !== 'cancelled')
      .map((other) =>
        other.clinicIk === selected
          ? { clinicIk: selected, taskId: other.id, status: 'in-progress', clearBusinessStatus: false, send: true, action: 'selected' }
          : { clinicIk: other.clinicIk, taskId: other.id, status: 'cancelled', clearBusinessStatus: false, send: false, action: 'cancelled' },
      ),
  };
}

/**
 * Withdrawal (docs/decisions.md): the request is active/proposal again and the formerly selected
 * clinic's Task is cancelled; the others stay cancelled until a later bundle names them again.
 */
function withdrawSelection(current: RequestState, submission: Submission): Decision {
  if (current.intent !== 'order' || !current.selectedClinicIk) return conflict('there is no selection to withdraw');
  if (submission.performerIks.length !== 1 || submission.performerIks[0] !== current.selectedClinicIk) {
    return conflict(`a withdrawal names the selected clinic ${current.selectedClinicIk} as the only performer`);
  }
  const selectedTask = current.tasks.find((task) => task.clinicIk === current.selectedClinicIk);
  return {
    kind: 'apply',
    change: 'selection-withdrawn',
    next: { status: 'active', intent: 'proposal', selectedClinicIk: null },
    tasks: selectedTask
      ? [{ clinicIk: selectedTask.clinicIk, taskId: selectedTask.id, status: 'cancelled', clearBusinessStatus: false, send: false, action: 'cancelled' }]
      : [],
  };
}

/**
 * Supplemented data (spec: active/proposal → active/proposal). docs/decisions.md: every Task that is
 * not cancelled goes back to `requested` and keeps its businessStatus until the new answer (whether
 * or not this bundle names its clinic); a cancelled Task named again is reopened without
 * businessStatus; a newly named clinic gets a new Task.
 */
function supplement(current: RequestState, submission: Submission): Decision {
  if (current.intent === 'order') {
    return conflict(`clinic ${current.selectedClinicIk} is selected; withdraw the selection before sending supplemented data`);
  }
  const named = unique(submission.performerIks);
  const added = onlyAddedClinics(current, submission, named);
  if (added) {
    const tasks: TaskChange[] = added.map((clinicIk) => ({ clinicIk, status: 'requested', clearBusinessStatus: true, send: true, action: 'answer-requested' }));
    return { kind: 'apply', change: 'supplemented', next: { status: 'active', intent: 'proposal', selectedClinicIk: null }, tasks };
  }
  const changes: TaskChange[] = current.tasks
    .filter((task) => task.status !== 'cancelled' || named.includes(task.clinicIk))
    .map((task) => ({
      clinicIk: task.clinicIk,
      taskId: task.id,
      status: 'requested',
      clearBusinessStatus: task.status === 'cancelled',
      send: true,
      action: 'answer-requested',
    }));
  for (const clinicIk of named) {
    if (!current.tasks.some((task) => task.clinicIk === clinicIk)) {
      changes.push({ clinicIk, status: 'requested', clearBusinessStatus: true, send: true, action: 'answer-requested' });
    }
  }
  return { kind: 'apply', change: 'supplemented', next: { status: 'active', intent: 'proposal', selectedClinicIk: null }, tasks: changes };
}

/**
 * The clinics a version only adds (docs/api.md, "Answer deadlines": asking further clinics): the same
 * content as the latest version but for its clinics, every clinic with a Task named again (but those
 * the party's rule asked, which no version named), and at least one clinic new to the request. Those get Tasks; every other Task stays as it is, and its
 * clinic is not sent the version. Undefined for any other version, a supplement.
 */
function onlyAddedClinics(current: RequestState, submission: Submission, named: readonly string[]): string[] | undefined {
  if (!current.latestContentHash || submission.fingerprint.content !== current.latestContentHash) return undefined;
  if (!current.tasks.every((task) => task.askedByRule || named.includes(task.clinicIk))) return undefined;
  const added = named.filter((clinicIk) => !current.tasks.some((task) => task.clinicIk === clinicIk));
  return added.length ? added : undefined;
}

function unique(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * A clinic's answer to its Task (docs/decisions.md, "Clinics answer" and "Tasks"): the FHIR task status
 * follows the business status, except for the selected clinic, whose Task stays `in-progress` while
 * the request is `order`.
 */
export function answerTask(
  request: { status: ServiceRequestStatus; intent: ServiceRequestIntent; selectedClinicIk: string | null },
  task: TaskState,
  businessStatus: BusinessStatus,
): { kind: 'reject'; diagnostics: string } | { kind: 'apply'; status: TaskStatus } {
  if (request.status === 'revoked') return { kind: 'reject', diagnostics: 'the request was revoked' };
  if (task.status === 'cancelled') return { kind: 'reject', diagnostics: 'this Task is cancelled' };
  if (request.intent === 'order' && request.selectedClinicIk === task.clinicIk) return { kind: 'apply', status: 'in-progress' };
  const status: Record<BusinessStatus, TaskStatus> = {
    accepted: 'accepted',
    declined: 'rejected',
    query: 'on-hold',
    'more-data-required': 'on-hold',
  };
  return { kind: 'apply', status: status[businessStatus] };
}

/**
 * The selected clinic withdraws its acceptance (docs/decisions.md, "Clinics answer"): the one thing a
 * selected clinic does that lifts the selection. The request is `active` / `proposal` again, as after
 * the referrer's withdrawal (the other clinics' Tasks stay cancelled until a later bundle names them
 * again); the clinic's Task becomes `rejected` with the answer `declined`. Only the selected clinic's
 * Task, and only while the request is an order.
 */
export function withdrawAcceptance(
  request: { status: ServiceRequestStatus; intent: ServiceRequestIntent; selectedClinicIk: string | null },
  task: TaskState,
):
  | { kind: 'reject'; diagnostics: string }
  | {
      kind: 'apply';
      next: { status: ServiceRequestStatus; intent: ServiceRequestIntent; selectedClinicIk: null };
      task: { status: TaskStatus; businessStatus: BusinessStatus };
    } {
  if (request.status === 'revoked') return { kind: 'reject', diagnostics: 'the request was revoked' };
  if (task.status === 'cancelled') return { kind: 'reject', diagnostics: 'this Task is cancelled' };
  if (request.intent !== 'order' || request.selectedClinicIk !== task.clinicIk || task.status !== 'in-progress') {
    return { kind: 'reject', diagnostics: 'this clinic is not selected for the request: only the selected clinic withdraws its acceptance' };
  }
  return {
    kind: 'apply',
    next: { status: 'active', intent: 'proposal', selectedClinicIk: null },
    task: { status: 'rejected', businessStatus: 'declined' },
  };
}
