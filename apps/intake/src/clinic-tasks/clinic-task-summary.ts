import { TASK_STATUSES_OF_LIST_STATE, TaskListState, type BusinessStatus, type ClinicTaskSummary, type TaskStatus } from '@bedrequest/contracts';
import { ageOn, resolveDepartment, type FhirSystems } from '@bedrequest/fhir-model';

/** The list state a Task of this status is in (libs/contracts `TASK_STATUSES_OF_LIST_STATE`). */
export function listStateOf(status: string): TaskListState | undefined {
  return TaskListState.options.find((state) => (TASK_STATUSES_OF_LIST_STATE[state] as readonly string[]).includes(status));
}

/** What the list statement reads per Task (snake_case as the SQL names it). */
export interface SummaryRow {
  id: string;
  status: string;
  business_status: string | null;
  authored_on: Date;
  last_modified: Date;
  sent_version: number;
  clinic_ik: string;
  referrer_ik: string;
  /** The request, for the audit trail: its ServiceRequest identifier and the referrer owning it. */
  request_identifier: string;
  referrer_party_id: string;
  request_status: string | null;
  intent: string | null;
  order_detail: string | null;
  service_type: string | null;
  occurrence_date: string | null;
  performer_type: unknown;
  requester_name: string | null;
  gender: string | null;
  birth_date: string | null;
  masked: boolean;
  diagnosis_code: string | null;
  diagnosis_display: string | null;
  /** Set for a Task of an erased request: the other fields of the version are null. */
  erased_at: Date | null;
  /** Whether the Task's latest answer was the service's automatic one (automatic-answers.ts). */
  answered_automatically: boolean;
  /** When documents reopened the Task after `more-data-required` (document-submission.ts). */
  documents_supplied_at?: Date | null;
  /** The answer deadline, and when the Task was marked overdue (docs/api.md, "Answer deadlines"). */
  answer_deadline?: Date | null;
  overdue_at?: Date | null;
}

/** A row of the clinic's list (libs/contracts `ClinicTaskSummary`) from what the list statement read. */
export function summaryOf(row: SummaryRow, systems: FhirSystems, today: Date): ClinicTaskSummary {
  const department = resolveDepartment(isCodeable(row.performer_type) ? { coding: row.performer_type } : undefined, systems.profileBase);
  const age = row.birth_date ? ageOn(row.birth_date, today) : undefined;
  return {
    id: row.id,
    status: row.status as TaskStatus,
    ...(row.business_status ? { businessStatus: row.business_status as BusinessStatus } : {}),
    ...(row.answered_automatically ? { answeredAutomatically: true } : {}),
    authoredOn: row.authored_on.toISOString(),
    lastModified: row.last_modified.toISOString(),
    version: row.sent_version,
    request: {
      status: row.request_status ?? 'active',
      intent: row.intent ?? 'proposal',
      ...(row.order_detail ? { orderDetail: row.order_detail } : {}),
      ...(row.service_type ? { serviceType: row.service_type } : {}),
      ...(row.occurrence_date ? { occurrenceDate: row.occurrence_date } : {}),
      ...(department ? { departmentCode: department.departmentCode } : {}),
      ...(department?.specialty ? { specialty: department.specialty.code } : {}),
      requesterIk: row.referrer_ik,
      ...(row.requester_name ? { requesterName: row.requester_name } : {}),
    },
    ...(row.erased_at ? { erasedAt: row.erased_at.toISOString() } : {}),
    patient: {
      dataLevel: row.erased_at ? 'erased' : row.masked ? 'masked' : 'complete',
      ...(row.gender ? { gender: row.gender } : {}),
      ...(age !== undefined ? { age } : {}),
    },
    ...(row.diagnosis_code ? { mainDiagnosis: { code: row.diagnosis_code, ...(row.diagnosis_display ? { display: row.diagnosis_display } : {}) } } : {}),
    ...(row.documents_supplied_at ? { documentsSuppliedAt: row.documents_supplied_at.toISOString() } : {}),
    ...(row.answer_deadline ? { deadline: row.answer_deadline.toISOString() } : {}),
    ...(row.overdue_at ? { overdueSince: row.overdue_at.toISOString() } : {}),
  };
}

function isCodeable(value: unknown): value is { system?: string; code?: string }[] {
  return Array.isArray(value) && value.every((coding) => typeof coding === 'object' && coding !== null);
}
