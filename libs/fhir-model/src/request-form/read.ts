import type { Bundle } from '@medplum/fhirtypes';
import { ADMINISTRATIVE_GENDERS, SERVICE_TYPE_CODES, type ServiceTypeCode } from '../codes';
import { isMaskedName } from '../patient-data';
import { findSpecialty, type SpecialtyCode } from '../specialties';
import {
  DEPARTMENT_KEY_SYSTEM,
  fhirSystems,
  type FhirSystems,
  ICD10GM_SYSTEM,
  IK_NUMBER_SYSTEM,
  INSURANCE_TYPE_SYSTEM,
  LOINC_SYSTEM,
  URI_IDENTIFIER_SYSTEM,
} from '../systems';
import { answerDeadlineOf } from '../validation/answer-deadline';
import { arrayField, field, stringField } from '../validation/raw';
import { COVERAGE_KINDS, type CoverageKind } from './fields';
import { MEASUREMENTS, unnamed, VISIT_NUMBER_TYPE } from './resources';
import type { RequestForm } from './schema';

/** The bundle is no AdmissionRequestBundle the form can be read from: it has no ServiceRequest or no Patient. */
export class RequestFormReadError extends Error {
  override name = 'RequestFormReadError';
}

/**
 * The request form of a stored AdmissionRequestBundle, or of the searchset that reads a request
 * back (docs/api.md, "Reading a request back": it keeps the entries' fullUrls but has no transmission
 * number, which a supplement needs anew anyway), so that a supplement starts from the latest
 * version: best effort, field by field. What the form does not have (other resources, extensions,
 * an ICD version, a telephone's use) is left out; a required field the bundle lacks is left empty
 * (`''`) or out, for `RequestForm` to report when the form is sent. A selection is read as a
 * selection, any other bundle (a proposal, the withdrawal of a selection) as a proposal, with the
 * patient's data as they are: a proposal read from a complete patient carries the name, which
 * `RequestForm` then asks to remove.
 */
export function formOfBundle(bundle: Bundle, options: { profileBase: string }): RequestForm {
  const systems = fhirSystems(options.profileBase);
  const resources = arrayField(bundle, 'entry').map((entry) => ({ fullUrl: stringField(entry, 'fullUrl'), resource: field(entry, 'resource') }));
  const ofType = (type: string) => resources.filter((entry) => stringField(entry.resource, 'resourceType') === type).map((entry) => entry.resource);
  const byReference = (reference: unknown) => resources.find((entry) => entry.fullUrl === stringField(reference, 'reference'))?.resource;
  const [request] = ofType('ServiceRequest');
  const [person] = ofType('Patient');
  if (!request || !person) throw new RequestFormReadError('the bundle has no ServiceRequest or no Patient: it is no AdmissionRequestBundle');

  const selection = intentOf(request, systems) === 'selection';
  const [stay] = ofType('Encounter');
  const [insurance] = ofType('Coverage');
  return {
    requestIdentifier: firstValue(arrayField(request, 'identifier'), URI_IDENTIFIER_SYSTEM) ?? '',
    transmissionNumber: stringField(field(bundle, 'identifier'), 'value') ?? '',
    stage: selection ? 'selection' : 'proposal',
    requester: organizationOf(byReference(field(request, 'requester'))),
    performers: arrayField(request, 'performer').map((performer) => {
      const clinic = byReference(performer);
      const deepLink = firstValue(arrayField(clinic, 'identifier'), systems.performerDeepLinkSystem);
      return { ...organizationOf(clinic), ...(deepLink ? { deepLink } : {}) };
    }),
    patient: patientOf(person),
    desiredAdmissionDate: stringField(request, 'occurrenceDateTime') ?? '',
    ...optionalDeadline(answerDeadlineOf(request, systems)),
    serviceType: codeOf(field(request, 'code'), systems.serviceTypeSystem, SERVICE_TYPE_CODES) ?? ('' as ServiceTypeCode),
    ...departmentOf(field(request, 'performerType'), systems),
    diagnoses: ofType('Condition').map(diagnosisOf),
    ...measurementsOf(ofType('Observation')),
    ...(insurance ? { coverage: coverageOf(insurance) } : {}),
    ...(stay ? { stay: stayOf(stay) } : {}),
    notes: arrayField(request, 'note').flatMap((note) => optional(stringField(note, 'text'))),
  };
}

function optionalDeadline(answerDeadline: string | undefined): Pick<RequestForm, 'answerDeadline'> {
  return answerDeadline === undefined ? {} : { answerDeadline };
}

function intentOf(request: unknown, systems: FhirSystems): RequestForm['stage'] {
  const selected = arrayField(request, 'orderDetail')
    .flatMap((concept) => arrayField(concept, 'coding'))
    .some((coding) => stringField(coding, 'system') === systems.orderDetailSystem && stringField(coding, 'code') === 'selected-provider');
  return field(request, 'intent') === 'order' && selected ? 'selection' : 'proposal';
}

function firstValue(identifiers: readonly unknown[], system: string): string | undefined {
  return stringField(
    identifiers.find((identifier) => stringField(identifier, 'system') === system),
    'value',
  );
}

function organizationOf(organization: unknown): { ik: string; name?: string } {
  const ik = firstValue(arrayField(organization, 'identifier'), IK_NUMBER_SYSTEM) ?? '';
  const name = stringField(organization, 'name');
  return { ik, ...(name && name !== unnamed(ik) ? { name } : {}) };
}

function patientOf(person: unknown): RequestForm['patient'] {
  const gender = stringField(person, 'gender');
  const [name] = arrayField(person, 'name');
  const [address] = arrayField(person, 'address');
  const masked = isMaskedName(name);
  const family = masked ? undefined : stringField(name, 'family');
  const given = masked ? [] : arrayField(name, 'given').filter((text): text is string => typeof text === 'string');
  const [streetLine] = arrayField(address, 'line').filter((text): text is string => typeof text === 'string');
  const phone = arrayField(person, 'telecom').find((telecom) => stringField(telecom, 'system') === 'phone');
  return {
    gender: ADMINISTRATIVE_GENDERS.find((known) => known === gender) ?? 'unknown',
    birthDate: stringField(person, 'birthDate') ?? '',
    postalCode: stringField(address, 'postalCode') ?? '',
    city: stringField(address, 'city') ?? '',
    ...(family ? { familyName: family } : {}),
    ...(given.length > 0 ? { givenNames: given } : {}),
    ...(streetLine ? { streetLine } : {}),
    ...(stringField(phone, 'value') ? { phone: stringField(phone, 'value') } : {}),
  };
}

function codeOf<T extends string>(concept: unknown, system: string, known: readonly T[]): T | undefined {
  const code = firstCode(concept, system);
  return known.find((candidate) => candidate === code);
}

function firstCode(concept: unknown, system: string): string | undefined {
  return stringField(
    arrayField(concept, 'coding').find((coding) => stringField(coding, 'system') === system),
    'code',
  );
}

function departmentOf(performerType: unknown, systems: FhirSystems): { specialty?: SpecialtyCode; departmentKey?: string } {
  const specialty = findSpecialty(firstCode(performerType, systems.specialtySystem) ?? '')?.code;
  const departmentKey = firstCode(performerType, DEPARTMENT_KEY_SYSTEM);
  return { ...(specialty ? { specialty } : {}), ...(departmentKey ? { departmentKey } : {}) };
}

function diagnosisOf(condition: unknown): RequestForm['diagnoses'][number] {
  const coding = arrayField(field(condition, 'code'), 'coding').find((entry) => stringField(entry, 'system') === ICD10GM_SYSTEM);
  // A date-time is read as its day: the form records days.
  const recordedDate = /^\d{4}-\d{2}-\d{2}/.exec(stringField(condition, 'recordedDate') ?? '')?.[0];
  return {
    code: stringField(coding, 'code') ?? '',
    text: stringField(coding, 'display') ?? stringField(field(condition, 'code'), 'text') ?? '',
    ...(recordedDate ? { recordedDate } : {}),
  };
}

function measurementsOf(observations: readonly unknown[]): Pick<RequestForm, 'weightKg' | 'heightCm'> {
  const read: Pick<RequestForm, 'weightKg' | 'heightCm'> = {};
  for (const measurement of MEASUREMENTS) {
    const found = observations.find((observation) => firstCode(field(observation, 'code'), LOINC_SYSTEM) === measurement.loinc);
    const quantity = field(found, 'valueQuantity');
    const value = field(quantity, 'value');
    if (typeof value === 'number' && stringField(quantity, 'code') === measurement.unit) read[measurement.field] = value;
  }
  return read;
}

function coverageOf(insurance: unknown): NonNullable<RequestForm['coverage']> {
  const [payor] = arrayField(insurance, 'payor');
  return {
    payorIk: stringField(field(payor, 'identifier'), 'value') ?? '',
    payorName: stringField(payor, 'display') ?? '',
    kind: codeOf(field(insurance, 'type'), INSURANCE_TYPE_SYSTEM, COVERAGE_KINDS) ?? ('' as CoverageKind),
  };
}

function stayOf(stay: unknown): NonNullable<RequestForm['stay']> {
  const period = field(stay, 'period');
  const day = (value: string | undefined) => /^\d{4}-\d{2}-\d{2}/.exec(value ?? '')?.[0];
  const dischargeDate = day(stringField(period, 'end'));
  const identifiers = arrayField(stay, 'identifier').filter((identifier) => stringField(identifier, 'system') !== URI_IDENTIFIER_SYSTEM);
  const visitNumber = identifiers.find((identifier) =>
    arrayField(field(identifier, 'type'), 'coding').some((coding) => stringField(coding, 'code') === VISIT_NUMBER_TYPE),
  );
  const caseNumber = stringField(visitNumber ?? identifiers[0], 'value');
  return {
    admissionDate: day(stringField(period, 'start')) ?? '',
    status: field(stay, 'status') === 'finished' ? 'discharged' : 'in-house',
    ...(dischargeDate ? { dischargeDate } : {}),
    ...(caseNumber ? { caseNumber } : {}),
  };
}

function optional(text: string | undefined): string[] {
  return text === undefined ? [] : [text];
}
