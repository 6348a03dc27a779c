import type { BusinessStatus, TaskStatus } from '@bedrequest/contracts';
import { ageOn, resolveDepartment, type FhirSystems } from '@bedrequest/fhir-model';

/**
 * The filters of a clinic's Task list (the clinic inbox's tabs), each a set of Task statuses
 * (decisions.md, "Tasks"): `new` waits for the clinic's answer (a first request or a supplement),
 * `answered` was answered and waits for the referrer, `selected` is the clinic's admission,
 * `cancelled` needs nothing more.
 */
export const TASK_LIST_STATES = {
  new: ['requested'],
  answered: ['accepted', 'rejected', 'on-hold'],
  selected: ['in-progress'],
  cancelled: ['cancelled'],
} as const satisfies Record<string, readonly TaskStatus[]>;
export type TaskListState = keyof typeof TASK_LIST_STATES;
export const TASK_LIST_STATE_NAMES = Object.keys(TASK_LIST_STATES) as TaskListState[];

export function listStateOf(status: string): TaskListState | undefined {
  return TASK_LIST_STATE_NAMES.find((state) => (TASK_LIST_STATES[state] as readonly string[]).includes(status));
}

/**
 * One row of a clinic's Task list: the Task's state and what a person needs to judge the request at
 * a glance, read from the request version the clinic was sent (never a later one, so a masked
 * patient stays masked for it). No name, address or other master data: age and gender only.
 */
export interface ClinicTaskSummary {
  id: string;
  status: TaskStatus;
  businessStatus?: BusinessStatus;
  /** When the request reached the clinic (the Task's creation). */
  authoredOn: string;
  lastModified: string;
  /** The request version the clinic was sent last (1 = the first request; higher after supplements). */
  version: number;
  request: {
    status: string;
    intent: string;
    orderDetail?: string;
    serviceType?: string;
    /** The desired admission date, YYYY-MM-DD. */
    occurrenceDate?: string;
    /** Resolved from `performerType` like routing does (decisions.md, "Requests"). */
    departmentCode?: string;
    specialty?: string;
    requesterIk: string;
    requesterName?: string;
  };
  /** When the request's patient data was erased (docs/data-protection.md): the row is its tombstone, without patient data. */
  erasedAt?: string;
  patient: {
    /** `erased`: the request's patient data was erased; nothing else is left of the patient. */
    dataLevel: 'masked' | 'complete' | 'erased';
    gender?: string;
    /** Whole years on the day of the answer. */
    age?: number;
  };
  /** The first ICD-10-GM coded Condition of the bundle. */
  mainDiagnosis?: { code: string; display?: string };
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
}

export function summaryOf(row: SummaryRow, systems: FhirSystems, today: Date): ClinicTaskSummary {
  const department = resolveDepartment(isCodeable(row.performer_type) ? { coding: row.performer_type } : undefined, systems.profileBase);
  const age = row.birth_date ? ageOn(row.birth_date, today) : undefined;
  return {
    id: row.id,
    status: row.status as TaskStatus,
    ...(row.business_status ? { businessStatus: row.business_status as BusinessStatus } : {}),
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
  };
}

function isCodeable(value: unknown): value is { system?: string; code?: string }[] {
  return Array.isArray(value) && value.every((coding) => typeof coding === 'object' && coding !== null);
}
