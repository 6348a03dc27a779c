import { ICD10GM_SYSTEM, MASKED_NULL_FLAVOR, NULL_FLAVOR_EXTENSION } from '@bedrequest/fhir-model';
import type { SummaryRow } from './clinic-task-summary';

/** The fields of a clinic's list row that come from the request version (the rest are the Task's). */
export type BundleSummary = Pick<
  SummaryRow,
  | 'request_status'
  | 'intent'
  | 'order_detail'
  | 'service_type'
  | 'occurrence_date'
  | 'performer_type'
  | 'requester_name'
  | 'gender'
  | 'birth_date'
  | 'masked'
  | 'diagnosis_code'
  | 'diagnosis_display'
>;

type JsonRecord = Record<string, unknown>;

/**
 * The list row's fields of an AdmissionRequestBundle, computed once when the version is stored and
 * kept sealed beside it: the bundle is sealed at rest, so the list can no longer read them out of
 * it in SQL. The first ServiceRequest and Patient, the first Condition's first ICD-10-GM coding, the
 * requester's name from the Organization its reference names; a Patient whose name is masked with
 * the nullFlavor MSK (spec, Patient) is `masked`.
 */
export function bundleSummaryOf(bundle: unknown): BundleSummary {
  const entries = arrayOf(recordOf(bundle)?.entry)
    .map(recordOf)
    .filter((entry): entry is JsonRecord => entry !== undefined);
  const resources = entries.map((entry) => recordOf(entry.resource)).filter((resource): resource is JsonRecord => resource !== undefined);
  const ofType = (type: string) => resources.find((resource) => resource.resourceType === type);
  const serviceRequest = ofType('ServiceRequest');
  const patient = ofType('Patient');
  const condition = ofType('Condition');
  const organizations = new Map<string, unknown>();
  for (const entry of entries) {
    const resource = recordOf(entry.resource);
    if (resource?.resourceType === 'Organization' && typeof entry.fullUrl === 'string' && !organizations.has(entry.fullUrl)) {
      organizations.set(entry.fullUrl, resource.name);
    }
  }
  const requester = textOf(recordOf(serviceRequest?.requester)?.reference);
  const diagnosis = arrayOf(recordOf(condition?.code)?.coding)
    .map(recordOf)
    .find((coding) => coding?.system === ICD10GM_SYSTEM);
  return {
    request_status: textOf(serviceRequest?.status),
    intent: textOf(serviceRequest?.intent),
    order_detail: textOf(recordOf(arrayOf(recordOf(arrayOf(serviceRequest?.orderDetail)[0])?.coding)[0])?.code),
    service_type: textOf(recordOf(arrayOf(recordOf(serviceRequest?.code)?.coding)[0])?.code),
    occurrence_date: textOf(serviceRequest?.occurrenceDateTime),
    performer_type: recordOf(serviceRequest?.performerType)?.coding ?? null,
    requester_name: requester === null ? null : textOf(organizations.get(requester)),
    gender: textOf(patient?.gender),
    birth_date: textOf(patient?.birthDate),
    masked: arrayOf(patient?.name).some((name) =>
      arrayOf(recordOf(recordOf(name)?._family)?.extension).some((extension) => {
        const found = recordOf(extension);
        return found?.url === NULL_FLAVOR_EXTENSION && found.valueCode === MASKED_NULL_FLAVOR;
      }),
    ),
    diagnosis_code: textOf(diagnosis?.code),
    diagnosis_display: textOf(diagnosis?.display),
  };
}

function recordOf(value: unknown): JsonRecord | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonRecord) : undefined;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A JSON value as `->>` gives it: strings as they are, other scalars as their JSON text. */
function textOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}
