import type { BusinessStatus, ServiceRequestIntent, ServiceRequestStatus, TaskStatus } from '@bedrequest/contracts';
import { askedByRuleOf, type StoredHistoryEntry, type TaskNote } from '../tasks';
import type { StoredRequest, StoredTask } from './request-records';

// Rows of intake's request and Task tables as its statements return them, and what a batch reads of them.

/** The columns of a request row that every statement about requests reads. */
export interface RequestRowBase {
  id: string;
  identifier: string;
  referrer_party_id: string;
  referrer_ik: string;
  status: string;
  intent: string;
}

/** A request row as json_agg writes it (timestamps as text). */
export interface RequestJson extends RequestRowBase {
  selected_clinic_ik: string | null;
  current_version: number;
  latest_hash: string;
  created_at: string;
  updated_at: string;
  erased: boolean;
  document_count: number;
  /** bigint as json_agg writes it: a number. */
  stored_bytes: number;
  answer_deadline: string | null;
  latest_content_hash: string | null;
  escalation_seen_changes?: number | null;
}

export interface TaskJson {
  id: string;
  request_id: string;
  clinic_ik: string;
  status: string;
  business_status: string | null;
  /** Sealed (`\\x` hex, as json_agg writes bytea); none once the request is erased. */
  sealed_notes: string | null;
  sent_version: number;
  authored_on: string;
  last_modified: string;
  cancelled_at: string | null;
  revision: number;
  /** Sealed like the notes; none before migration 0008 and once the request is erased. */
  sealed_history: string | null;
  documents_supplied_at: string | null;
  answer_deadline: string | null;
  overdue_at: string | null;
  overdue_deadline: string | null;
  asked_by_rule?: unknown;
  department_code?: string | null;
}

export function storedRequestOf(request: RequestJson): StoredRequest {
  return {
    id: request.id,
    identifier: request.identifier,
    referrerPartyId: request.referrer_party_id,
    referrerIk: request.referrer_ik,
    status: request.status as ServiceRequestStatus,
    intent: request.intent as ServiceRequestIntent,
    selectedClinicIk: request.selected_clinic_ik,
    currentVersion: request.current_version,
    latestHash: request.latest_hash,
    createdAt: new Date(request.created_at),
    updatedAt: new Date(request.updated_at),
    ...(request.erased ? { erased: true } : {}),
    documentCount: request.document_count,
    storedBytes: Number(request.stored_bytes),
    answerDeadline: dateOrNull(request.answer_deadline),
    latestContentHash: request.latest_content_hash,
    escalationSeenChanges: request.escalation_seen_changes ?? null,
  };
}

/** A Task row with its notes and history, opened (none once the request is erased). */
export function storedTaskOf(task: TaskJson, notes: TaskNote[], history: StoredHistoryEntry[] = []): StoredTask {
  return {
    id: task.id,
    requestId: task.request_id,
    clinicIk: task.clinic_ik,
    status: task.status as TaskStatus,
    businessStatus: task.business_status as BusinessStatus | null,
    notes,
    sentVersion: task.sent_version,
    authoredOn: new Date(task.authored_on),
    lastModified: new Date(task.last_modified),
    cancelledAt: task.cancelled_at ? new Date(task.cancelled_at) : null,
    revision: task.revision,
    history,
    documentsSuppliedAt: task.documents_supplied_at ? new Date(task.documents_supplied_at) : null,
    answerDeadline: dateOrNull(task.answer_deadline),
    overdueSince: dateOrNull(task.overdue_at),
    overdueDeadline: dateOrNull(task.overdue_deadline),
    askedByRule: askedByRuleOf(task.asked_by_rule),
    departmentCode: task.department_code ?? null,
  };
}

function dateOrNull(text: string | null | undefined): Date | null {
  return text ? new Date(text) : null;
}
