import {
  ageOn,
  BODY_HEIGHT_LOINC,
  BODY_WEIGHT_LOINC,
  DEPARTMENT_KEY_SYSTEM,
  fhirSystems,
  ICD10GM_SYSTEM,
  IK_NUMBER_SYSTEM,
  INSURANCE_TYPE_SYSTEM,
  isMaskedName,
  LOINC_SYSTEM,
  resolveDepartment,
  URI_IDENTIFIER_SYSTEM,
} from '@bedrequest/fhir-model';
import type { Formats } from './format';
import { caseNumberOf, departmentName, MOBILITY } from './request-details';
import { list, record, text, type Json } from './json-reading';
import type { Texts } from './texts.de';

/**
 * One version of an AdmissionRequestBundle as a person reads it: labelled fields in sections. The
 * bundle was validated when it was sent (docs/api.md), so every field is where the spec puts it;
 * it is still read defensively, field by field, and what is missing is left out.
 *
 * The same fields of two versions are compared to show what a supplement changed (`changesBetween`).
 */
export interface RequestField {
  /** Stable across versions: what is compared. */
  key: string;
  label: string;
  /** One line, or several (a list). */
  value: string | string[];
  /** An http(s) link target for the value. */
  href?: string;
}

export type SectionName = 'patient' | 'request' | 'diagnoses' | 'measurements' | 'coverage' | 'stay' | 'notes';

export interface RequestView {
  sections: { name: SectionName; fields: RequestField[] }[];
  patient: { masked: boolean; name?: string; gender?: string; age?: number };
  /** `proposal`, `order`, `revoked` or `withdrawn` (selection withdrawn). */
  stage: 'proposal' | 'order' | 'revoked' | 'withdrawn';
  /** The referrer's notes that speak of the patient's mobility, for the summary at the top of the page. */
  mobility: string[];
}

export function requestViewOf(bundle: unknown, context: { clinicIk: string; profileBase: string; texts: Texts; formats: Formats; today: Date }): RequestView {
  const { texts, formats } = context;
  const f = texts.task.fields;
  const systems = fhirSystems(context.profileBase);
  const entries = list(record(bundle)?.entry).flatMap((entry) => {
    const resource = record(record(entry)?.resource);
    return resource ? [{ fullUrl: text(record(entry)?.fullUrl) ?? '', resource }] : [];
  });
  const byType = (type: string) => entries.filter((entry) => entry.resource.resourceType === type).map((entry) => entry.resource);
  const byReference = (reference: unknown) => entries.find((entry) => entry.fullUrl === text(record(reference)?.reference))?.resource;

  const serviceRequest = byType('ServiceRequest')[0] ?? {};
  const patient = byType('Patient')[0] ?? {};
  const masked = list(patient.name).some(isMaskedName);
  const name = masked ? undefined : list(patient.name).map(humanName).find(Boolean);
  const age = ageOn(text(patient.birthDate), context.today);

  const patientFields: RequestField[] = [
    field('patient.name', f.name, masked ? texts.task.fields.masked : name),
    field('patient.gender', f.gender, text(patient.gender) && (texts.gender[text(patient.gender) ?? ''] ?? text(patient.gender))),
    field('patient.birthDate', f.birthDate, formats.day(text(patient.birthDate))),
    field('patient.age', f.age, age !== undefined ? texts.task.years(age) : undefined),
    field('patient.address', f.address, list(patient.address).map(address).filter(nonEmpty)),
    field(
      'patient.telecom',
      f.telecom,
      list(patient.telecom)
        .map((contact) => telecom(contact, texts))
        .filter(nonEmpty),
    ),
    field(
      'patient.identifier',
      f.patientId,
      list(patient.identifier)
        .map(record)
        .find((id) => id?.system === URI_IDENTIFIER_SYSTEM)?.value,
    ),
  ].filter(present);

  const performerType = record(serviceRequest.performerType);
  const department = resolveDepartment({ coding: list(performerType?.coding).map(record).filter(present) }, context.profileBase);
  const departmentCoding = list(performerType?.coding)
    .map(record)
    .find((coding) => coding?.system === DEPARTMENT_KEY_SYSTEM);
  const requester = byReference(serviceRequest.requester);
  const serviceType = list(record(serviceRequest.code)?.coding)
    .map(record)
    .find((coding) => coding?.system === systems.serviceTypeSystem);
  const orderDetail = list(serviceRequest.orderDetail)
    .flatMap((concept) => list(record(concept)?.coding))
    .map(record)[0]?.code;
  const stage =
    serviceRequest.status === 'revoked'
      ? 'revoked'
      : orderDetail === 'selected-provider-cancelled'
        ? 'withdrawn'
        : serviceRequest.intent === 'order'
          ? 'order'
          : 'proposal';
  const ownPerformer = list(serviceRequest.performer)
    .map(byReference)
    .find((organization) => list(organization?.identifier).some((id) => record(id)?.system === IK_NUMBER_SYSTEM && record(id)?.value === context.clinicIk));
  const deepLink = list(ownPerformer?.identifier)
    .map(record)
    .find((id) => id?.system === systems.performerDeepLinkSystem)?.value;

  const requestFields: RequestField[] = [
    field('request.stage', f.stage, texts.task.stage[stage]),
    field(
      'request.serviceType',
      f.serviceType,
      text(serviceType?.code) && (texts.serviceType[text(serviceType?.code) ?? ''] ?? text(serviceType?.display) ?? text(serviceType?.code)),
    ),
    field('request.specialty', f.specialty, department?.specialty && (texts.specialty[department.specialty.code] ?? department.specialty.display)),
    field(
      'request.department',
      f.department,
      department && departmentName(department, text(departmentCoding?.code) === department.departmentCode ? text(departmentCoding?.display) : undefined, texts),
    ),
    field('request.caseNumber', f.caseNumber, caseNumberOf(byType('Encounter')[0])),
    field('request.admission', f.admission, formats.day(text(serviceRequest.occurrenceDateTime))),
    field('request.requester', f.requester, requester && organizationName(requester, texts)),
    ...(typeof deepLink === 'string'
      ? [{ key: 'request.deepLink', label: f.deepLink, value: deepLink, ...(httpUrl(deepLink) ? { href: deepLink } : {}) }]
      : []),
  ].filter(present);

  const diagnoses = byType('Condition').flatMap((condition) => {
    const coding = list(record(condition.code)?.coding)
      .map(record)
      .find((candidate) => candidate?.system === ICD10GM_SYSTEM);
    if (!coding) return [];
    const recorded = formats.day(text(condition.recordedDate));
    return [[text(coding.code), text(coding.display)].filter(nonEmpty).join(' ') + (recorded ? ` (${recorded})` : '')];
  });
  const diagnosisFields: RequestField[] = diagnoses.map((diagnosis, index) => ({
    key: `diagnoses.${index}`,
    label: index === 0 ? f.mainDiagnosis : f.diagnosis,
    value: diagnosis,
  }));

  const measurement = (loinc: string) => {
    const observation = byType('Observation').find((candidate) =>
      list(record(candidate.code)?.coding).some((coding) => record(coding)?.system === LOINC_SYSTEM && record(coding)?.code === loinc),
    );
    const quantity = record(observation?.valueQuantity);
    return typeof quantity?.value === 'number'
      ? `${quantity.value.toLocaleString(texts.locale)} ${text(quantity.unit) ?? text(quantity.code) ?? ''}`.trim()
      : undefined;
  };
  const measurementFields = [
    field('measurements.weight', f.weight, measurement(BODY_WEIGHT_LOINC)),
    field('measurements.height', f.height, measurement(BODY_HEIGHT_LOINC)),
  ].filter(present);

  const coverage = byType('Coverage')[0];
  const insuranceType = list(record(coverage?.type)?.coding)
    .map(record)
    .find((coding) => coding?.system === INSURANCE_TYPE_SYSTEM)?.code;
  const coverageFields = [
    field('coverage.type', f.insuranceType, typeof insuranceType === 'string' ? (texts.insuranceType[insuranceType] ?? insuranceType) : undefined),
    field(
      'coverage.payor',
      f.payor,
      list(coverage?.payor).map((payor) => {
        const ik = record(record(payor)?.identifier)?.value;
        return [text(record(payor)?.display), typeof ik === 'string' ? `(${texts.ik(ik)})` : undefined].filter(nonEmpty).join(' ');
      }),
    ),
  ].filter(present);

  const encounter = byType('Encounter')[0];
  const period = record(encounter?.period);
  const hospital = byReference(encounter?.serviceProvider);
  const stayFields = [
    field('stay.hospital', f.hospital, hospital && organizationName(hospital, texts)),
    field('stay.start', f.stayStart, formats.day(text(period?.start))),
    field('stay.end', f.stayEnd, formats.day(text(period?.end))),
    field('stay.status', f.stayStatus, text(encounter?.status) && (texts.encounterStatus[text(encounter?.status) ?? ''] ?? text(encounter?.status))),
  ].filter(present);

  const notes = list(serviceRequest.note)
    .map((note) => text(record(note)?.text))
    .filter(nonEmpty);
  const noteFields: RequestField[] = notes.length ? [{ key: 'notes', label: f.notes, value: notes }] : [];
  const mobility = notes.filter((note) => MOBILITY.test(note));

  return {
    sections: [
      { name: 'patient', fields: patientFields },
      { name: 'request', fields: requestFields },
      { name: 'diagnoses', fields: diagnosisFields },
      { name: 'measurements', fields: measurementFields },
      { name: 'coverage', fields: coverageFields },
      { name: 'stay', fields: stayFields },
      { name: 'notes', fields: noteFields },
    ],
    patient: { masked, ...(name ? { name } : {}), ...(text(patient.gender) ? { gender: text(patient.gender) } : {}), ...(age !== undefined ? { age } : {}) },
    stage,
    mobility,
  };
}

export interface FieldChange {
  key: string;
  label: string;
  before?: string | string[];
  after?: string | string[];
}

/** What differs between two versions' fields, in the order of the newer one (then what it dropped). */
export function changesBetween(before: RequestView, after: RequestView): FieldChange[] {
  const fieldsOf = (view: RequestView) => new Map(view.sections.flatMap((section) => section.fields).map((entry) => [entry.key, entry]));
  const old = fieldsOf(before);
  const now = fieldsOf(after);
  const changes: FieldChange[] = [];
  for (const [key, entry] of now) {
    const previous = old.get(key);
    if (!previous || !sameValue(previous.value, entry.value)) {
      changes.push({ key, label: entry.label, ...(previous ? { before: previous.value } : {}), after: entry.value });
    }
  }
  for (const [key, entry] of old) if (!now.has(key)) changes.push({ key, label: entry.label, before: entry.value });
  return changes;
}

function sameValue(a: string | string[], b: string | string[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function field(key: string, label: string, value: unknown): RequestField | undefined {
  if (Array.isArray(value)) {
    const lines = value.filter((line): line is string => typeof line === 'string' && line.length > 0);
    return lines.length ? { key, label, value: lines } : undefined;
  }
  return typeof value === 'string' && value.length > 0 ? { key, label, value } : undefined;
}

function humanName(name: unknown): string | undefined {
  const parts = [...list(record(name)?.prefix), ...list(record(name)?.given), record(name)?.family].filter(
    (part): part is string => typeof part === 'string' && part.length > 0,
  );
  return parts.length ? parts.join(' ') : undefined;
}

function address(value: unknown): string {
  const entry = record(value);
  return [
    ...list(entry?.line).filter((line): line is string => typeof line === 'string'),
    [text(entry?.postalCode), text(entry?.city)].filter(nonEmpty).join(' '),
  ]
    .filter(nonEmpty)
    .join(', ');
}

function telecom(value: unknown, texts: Texts): string {
  const entry = record(value);
  const system = text(entry?.system);
  return [system ? `${texts.telecomSystem[system] ?? system}:` : undefined, text(entry?.value)].filter(nonEmpty).join(' ');
}

function organizationName(organization: Json, texts: Texts): string | undefined {
  const ik = list(organization.identifier)
    .map(record)
    .find((id) => id?.system === IK_NUMBER_SYSTEM)?.value;
  const name = text(organization.name);
  return [name, typeof ik === 'string' ? (name ? `(${texts.ik(ik)})` : texts.ik(ik)) : undefined].filter(nonEmpty).join(' ') || undefined;
}

function httpUrl(value: string): boolean {
  return /^https?:\/\//i.test(value);
}

function nonEmpty(value: string | undefined): value is string {
  return typeof value === 'string' && value.length > 0;
}

function present<T>(value: T | undefined): value is T {
  return value !== undefined;
}
