import { BusinessStatus, OrderDetailCode, ServiceRequestIntent, ServiceRequestStatus } from '@bedrequest/contracts';

/**
 * The closed code lists of the interface. Their systems are in `systems.ts`; the specialty table
 * is in `specialties.ts`. The lists that messages carry are declared in libs/contracts (`codes.ts`)
 * and read from there.
 */

/** `ServiceRequest.code` (docs/decisions.md, "Requests"); any other code is a 400. */
export const SERVICE_TYPE_CODES = [
  'full-inpatient-rehabilitation',
  'day-patient-rehabilitation',
  /** Anschlussrehabilitation */
  'follow-up-rehabilitation',
  'early-rehabilitation',
] as const;
export type ServiceTypeCode = (typeof SERVICE_TYPE_CODES)[number];

/** `ServiceRequest.orderDetail` (spec, ServiceRequest, "orderDetail codes"). */
export const ORDER_DETAIL_CODES = OrderDetailCode.options;
export type { OrderDetailCode, ServiceRequestIntent, ServiceRequestStatus };

export const SERVICE_REQUEST_STATUSES = ServiceRequestStatus.options;
export const SERVICE_REQUEST_INTENTS = ServiceRequestIntent.options;

/** `Task.businessStatus.coding[0]` (docs/decisions.md, "Tasks"): the display of each code. */
export const ADMISSION_RESPONSE_STATUSES = {
  accepted: 'Accepted',
  declined: 'Declined',
  query: 'Query',
  'more-data-required': 'More data required',
} as const satisfies Record<BusinessStatus, string>;
export const ADMISSION_RESPONSE_STATUS_CODES = BusinessStatus.options;

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
