/**
 * The closed code lists of the interface. Their systems are in `systems.ts`; the specialty table
 * is in `specialties.ts`.
 */

/** `ServiceRequest.code` (decisions.md, "Requests"); any other code is a 400. */
export const SERVICE_TYPE_CODES = [
  'full-inpatient-rehabilitation',
  'day-patient-rehabilitation',
  /** Anschlussrehabilitation */
  'follow-up-rehabilitation',
  'early-rehabilitation',
] as const;
export type ServiceTypeCode = (typeof SERVICE_TYPE_CODES)[number];

/** `ServiceRequest.orderDetail` (spec, ServiceRequest, "orderDetail codes"). */
export const ORDER_DETAIL_CODES = ['selected-provider', 'selected-provider-cancelled'] as const;
export type OrderDetailCode = (typeof ORDER_DETAIL_CODES)[number];

export const SERVICE_REQUEST_STATUSES = ['active', 'revoked'] as const;
export type ServiceRequestStatus = (typeof SERVICE_REQUEST_STATUSES)[number];

export const SERVICE_REQUEST_INTENTS = ['proposal', 'order'] as const;
export type ServiceRequestIntent = (typeof SERVICE_REQUEST_INTENTS)[number];

/** `Task.businessStatus.coding[0]` (decisions.md, "Tasks"). */
export const ADMISSION_RESPONSE_STATUSES = {
  accepted: 'Accepted',
  declined: 'Declined',
  query: 'Query',
  'more-data-required': 'More data required',
} as const;
export type AdmissionResponseStatus = keyof typeof ADMISSION_RESPONSE_STATUSES;
export const ADMISSION_RESPONSE_STATUS_CODES = Object.keys(ADMISSION_RESPONSE_STATUSES) as AdmissionResponseStatus[];

/** FHIR R4 value set administrative-gender. */
export const ADMINISTRATIVE_GENDERS = ['male', 'female', 'other', 'unknown'] as const;
/** FHIR R4 value set contact-point-use. */
export const CONTACT_POINT_USES = ['home', 'work', 'temp', 'old', 'mobile'] as const;
/** Spec, Patient: `telecom[].system` is `phone` or `email`. */
export const PATIENT_TELECOM_SYSTEMS = ['phone', 'email'] as const;
/** Spec, Encounter. */
export const ENCOUNTER_STATUSES = ['in-progress', 'finished'] as const;

/** Spec, Observation: the LOINC codes and the UCUM unit each must be measured in. */
export const BODY_WEIGHT_LOINC = '29463-7';
export const BODY_HEIGHT_LOINC = '8302-2';
export const UCUM_UNIT_BY_LOINC: ReadonlyMap<string, string> = new Map([
  [BODY_WEIGHT_LOINC, 'kg'],
  [BODY_HEIGHT_LOINC, 'cm'],
]);
