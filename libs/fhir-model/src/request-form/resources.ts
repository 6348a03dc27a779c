import type { Condition, Coverage, Encounter, HumanName, Observation, Organization, Patient } from '@medplum/fhirtypes';
import { BODY_HEIGHT_LOINC, BODY_WEIGHT_LOINC } from '../codes';
import {
  ACT_CODE_SYSTEM,
  ICD10GM_SYSTEM,
  IK_NUMBER_SYSTEM,
  INSURANCE_TYPE_SYSTEM,
  LOINC_SYSTEM,
  MASKED_NULL_FLAVOR,
  NULL_FLAVOR_EXTENSION,
  UCUM_SYSTEM,
  URI_IDENTIFIER_SYSTEM,
} from '../systems';
import type { RequestForm } from './schema';

/** A reference between entries (`urn:uuid:`); untyped, as the entries' types are known. */
export interface LocalReference {
  reference: string;
}

/** The resources of an AdmissionRequestBundle other than the ServiceRequest, from the request form. */

/** HL7 v2 table 0203, whose `VN` types the Encounter's identifier as the visit number the clinic shows as the referrer's case number (docs/inbox.md). */
export const IDENTIFIER_TYPE_SYSTEM = 'http://terminology.hl7.org/CodeSystem/v2-0203';
export const VISIT_NUMBER_TYPE = 'VN';

/** The measurements of the form with their LOINC codes and UCUM units (spec, Observation). */
export const MEASUREMENTS = [
  { field: 'weightKg', loinc: BODY_WEIGHT_LOINC, display: 'Body weight', unit: 'kg' },
  { field: 'heightCm', loinc: BODY_HEIGHT_LOINC, display: 'Body height', unit: 'cm' },
] as const;

/** The Organization's name when the form gives none: the spec requires one. Read back as none. */
export const unnamed = (ik: string) => `IK ${ik}`;

/**
 * The Patient: pseudonymised in a proposal (the family name masked with the nullFlavor `MSK`,
 * only gender, birth date, postal code and city), complete in a selection (spec, Patient, "Data
 * level by stage"). Its identifier is a URI under the referrer's FHIR base, the same in every
 * version of the request.
 */
export function patient(form: RequestForm, id: string, fhirBase: string): Patient {
  const { patient: person } = form;
  const common = { resourceType: 'Patient' as const, id, identifier: [{ system: URI_IDENTIFIER_SYSTEM, value: `${fhirBase}/Patient/${id}` }] };
  const demographics = { gender: person.gender, birthDate: person.birthDate };
  if (form.stage === 'proposal') {
    const masked = { _family: { extension: [{ url: NULL_FLAVOR_EXTENSION, valueCode: MASKED_NULL_FLAVOR }] } } as HumanName;
    return { ...common, name: [masked], ...demographics, address: [{ postalCode: person.postalCode, city: person.city }] };
  }
  const givenNames = person.givenNames ?? [];
  return {
    ...common,
    name: [{ family: person.familyName, ...(givenNames.length > 0 ? { given: givenNames } : {}) }],
    ...demographics,
    address: [{ ...(person.streetLine ? { line: [person.streetLine] } : {}), postalCode: person.postalCode, city: person.city }],
    ...(person.phone ? { telecom: [{ system: 'phone' as const, value: person.phone }] } : {}),
  };
}

export function coverage(insurance: NonNullable<RequestForm['coverage']>, id: string, beneficiary: LocalReference): Coverage {
  return {
    resourceType: 'Coverage',
    id,
    status: 'active',
    type: { coding: [{ system: INSURANCE_TYPE_SYSTEM, code: insurance.kind }] },
    beneficiary,
    payor: [{ identifier: { system: IK_NUMBER_SYSTEM, value: insurance.payorIk }, display: insurance.payorName }],
  };
}

/** The stay in the referring hospital (spec, Encounter), provided by the requester. */
export function encounter(stay: NonNullable<RequestForm['stay']>, id: string, subject: LocalReference, serviceProvider: LocalReference): Encounter {
  const visitNumber = stay.caseNumber
    ? [{ type: { coding: [{ system: IDENTIFIER_TYPE_SYSTEM, code: VISIT_NUMBER_TYPE }] }, value: stay.caseNumber }]
    : undefined;
  return {
    resourceType: 'Encounter',
    id,
    ...(visitNumber ? { identifier: visitNumber } : {}),
    status: stay.status === 'discharged' ? 'finished' : 'in-progress',
    class: { system: ACT_CODE_SYSTEM, code: 'IMP' },
    subject,
    serviceProvider,
    period: { start: stay.admissionDate, ...(stay.dischargeDate ? { end: stay.dischargeDate } : {}) },
  };
}

export function condition(
  diagnosis: RequestForm['diagnoses'][number],
  id: string,
  subject: LocalReference,
  encounterRef: LocalReference | undefined,
  today: string,
): Condition {
  return {
    resourceType: 'Condition',
    id,
    code: { coding: [{ system: ICD10GM_SYSTEM, code: diagnosis.code, display: diagnosis.text }] },
    subject,
    ...(encounterRef ? { encounter: encounterRef } : {}),
    // The spec requires a recorded date; a diagnosis typed without one is recorded today.
    recordedDate: diagnosis.recordedDate ?? today,
  };
}

export function observation(measurement: (typeof MEASUREMENTS)[number], value: number, id: string, subject: LocalReference): Observation {
  return {
    resourceType: 'Observation',
    id,
    status: 'final',
    code: { coding: [{ system: LOINC_SYSTEM, code: measurement.loinc, display: measurement.display }] },
    subject,
    valueQuantity: { value, unit: measurement.unit, system: UCUM_SYSTEM, code: measurement.unit },
  };
}

export function organization(id: string, ik: string, name: string | undefined, deepLink?: { system: string; value: string }): Organization {
  return {
    resourceType: 'Organization',
    id,
    identifier: [{ system: IK_NUMBER_SYSTEM, value: ik }, ...(deepLink ? [deepLink] : [])],
    name: name ?? unnamed(ik),
  };
}
