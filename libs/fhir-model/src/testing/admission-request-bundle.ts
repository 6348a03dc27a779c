import { randomUUID } from 'node:crypto';
import type {
  Bundle,
  Condition,
  Coverage,
  Encounter,
  HumanName,
  Identifier,
  Observation,
  Organization,
  Patient,
  Resource,
  ServiceRequest,
} from '@medplum/fhirtypes';
import type { OrderDetailCode, ServiceRequestIntent, ServiceRequestStatus, ServiceTypeCode } from '../codes';
import type { PatientDataLevel } from '../patient-data';
import { findSpecialty, type SpecialtyCode } from '../specialties';
import {
  ACT_CODE_SYSTEM,
  DEFAULT_PROFILE_BASE,
  DEPARTMENT_KEY_SYSTEM,
  fhirSystems,
  type FhirSystems,
  ICD10GM_SYSTEM,
  IK_NUMBER_SYSTEM,
  INSURANCE_TYPE_SYSTEM,
  LOINC_SYSTEM,
  MASKED_NULL_FLAVOR,
  NULL_FLAVOR_EXTENSION,
  UCUM_SYSTEM,
  URI_IDENTIFIER_SYSTEM,
} from '../systems';
import { seededUuid, urnUuid } from './ids';

export const FIXTURE_FHIR_BASE = 'https://referrer.example/fhir';
export const FIXTURE_REQUESTER_IK = '260000001';
export const FIXTURE_PERFORMER_IKS = ['510000001', '510000002'] as const;
export const FIXTURE_TIMESTAMP = '2026-11-21T23:49:05.833Z';

export interface AdmissionRequestFixtureOptions {
  profileBase?: string;
  /** The referrer's registered FHIR base URL; the request and patient identifiers start with it. */
  fhirBase?: string;
  /** Default: `{fhirBase}/ServiceRequest/<new uuid>`, i.e. a new request on every call. */
  requestIdentifier?: string;
  requesterIk?: string;
  /** Default: both `FIXTURE_PERFORMER_IKS` for a proposal, the first of them for `intent: order`. */
  performerIks?: readonly string[];
  /** Performer deep links by IK (spec, Organization: `{profile_base}/fhir/sid/performer-deep-link`). */
  performerDeepLinks?: Readonly<Record<string, string>>;
  status?: ServiceRequestStatus;
  /** Default: `order` when an `orderDetail` is given, else `proposal`. */
  intent?: ServiceRequestIntent;
  /** Default: `selected-provider` when `intent` is `order`, else none. */
  orderDetail?: OrderDetailCode;
  /** Default: `complete` for a provider selection, else `masked`. */
  patient?: PatientDataLevel;
  serviceType?: ServiceTypeCode;
  /** Default `orthopedics`; `null` leaves the specialty coding out. */
  specialty?: SpecialtyCode | null;
  /** Default: the specialty's department key, 2300 without specialty; `null` leaves the department coding out. */
  departmentCode?: string | null;
  occurrenceDate?: string;
  notes?: readonly string[];
  /** `Bundle.identifier.value`. Default: derived from the request identifier. */
  transmissionNumber?: string;
  timestamp?: string;
}

/**
 * A valid AdmissionRequestBundle shaped like the spec's examples: ServiceRequest, Patient,
 * Coverage, Encounter, three Conditions, two Observations and the Organizations of the requester
 * and each performer, in that entry order. With a `requestIdentifier`, the same options give the
 * same JSON (a retry, for docs/decisions.md); without one, every call is a new request.
 *
 * @example admissionRequestBundle({ intent: 'order', orderDetail: 'selected-provider', performerIks: ['510000001'] })
 */
export function admissionRequestBundle(options: AdmissionRequestFixtureOptions = {}): Bundle {
  const o = withDefaults(options);
  const systems = fhirSystems(o.profileBase);
  const id = (role: string) => seededUuid(o.requestIdentifier, role);
  const ids: FixtureIds = {
    serviceRequest: id('ServiceRequest'),
    patient: id('Patient'),
    encounter: id('Encounter'),
    requester: id(`requester/${o.requesterIk}`),
    performers: o.performerIks.map((ik, index) => ({ ik, id: id(`performer/${index}/${ik}`) })),
  };
  // A new object at each use: a test that changes one reference must not change the others.
  const toPatient = () => ref(ids.patient);

  const resources: Resource[] = [
    serviceRequest(o, systems, ids),
    patient(o, ids.patient),
    coverage(id('Coverage'), toPatient()),
    encounter(ids.encounter, toPatient(), ref(ids.requester)),
    ...DIAGNOSES.map((diagnosis) => condition(id(`Condition/${diagnosis.code}`), diagnosis, toPatient(), ref(ids.encounter))),
    ...MEASUREMENTS.map((measurement) => observation(id(`Observation/${measurement.loinc}`), measurement, toPatient())),
    organization(ids.requester, o.requesterIk, 'Akutklinik Mitte'),
    ...ids.performers.map((performer) => organization(performer.id, performer.ik, `Rehaklinik ${performer.ik}`, deepLink(o, systems, performer.ik))),
  ];
  return {
    resourceType: 'Bundle',
    id: seededUuid(o.requestIdentifier, o.transmissionNumber, 'Bundle'),
    meta: { profile: [systems.admissionRequestBundleProfile] },
    identifier: { system: systems.admissionRequestNamingSystem, value: o.transmissionNumber },
    type: 'collection',
    timestamp: o.timestamp,
    entry: resources.map((resource) => ({ fullUrl: urnUuid(resource.id ?? ''), resource })),
  };
}

/** The options with every default applied (`null` still means "leave out"). */
type FixtureSettings = Required<Omit<AdmissionRequestFixtureOptions, 'orderDetail'>> & Pick<AdmissionRequestFixtureOptions, 'orderDetail'>;

interface FixtureIds {
  serviceRequest: string;
  patient: string;
  encounter: string;
  requester: string;
  performers: { ik: string; id: string }[];
}

function withDefaults(options: AdmissionRequestFixtureOptions): FixtureSettings {
  const fhirBase = options.fhirBase ?? FIXTURE_FHIR_BASE;
  const intent = options.intent ?? (options.orderDetail ? 'order' : 'proposal');
  const orderDetail = options.orderDetail ?? (intent === 'order' ? 'selected-provider' : undefined);
  const requestIdentifier = options.requestIdentifier ?? `${fhirBase}/ServiceRequest/${randomUUID()}`;
  const specialty = options.specialty === undefined ? 'orthopedics' : options.specialty;
  const specialtyDepartment = (specialty && findSpecialty(specialty)?.department) ?? '2300';
  return {
    profileBase: DEFAULT_PROFILE_BASE,
    requesterIk: FIXTURE_REQUESTER_IK,
    performerIks: intent === 'order' ? FIXTURE_PERFORMER_IKS.slice(0, 1) : [...FIXTURE_PERFORMER_IKS],
    performerDeepLinks: {},
    status: 'active',
    patient: orderDetail === 'selected-provider' ? 'complete' : 'masked',
    serviceType: 'full-inpatient-rehabilitation',
    occurrenceDate: '2026-12-01',
    notes: ['Einzelzimmer erwünscht'],
    transmissionNumber: `T-${seededUuid(requestIdentifier, 'transmission').slice(0, 8)}`,
    timestamp: FIXTURE_TIMESTAMP,
    ...definedOnly(options),
    fhirBase,
    requestIdentifier,
    intent,
    orderDetail,
    specialty,
    departmentCode: options.departmentCode === undefined ? specialtyDepartment : options.departmentCode,
  };
}

function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

const ref = (uuid: string) => ({ reference: urnUuid(uuid) });

function deepLink(o: FixtureSettings, systems: FhirSystems, ik: string): Identifier | undefined {
  const link = Object.hasOwn(o.performerDeepLinks, ik) ? o.performerDeepLinks[ik] : undefined;
  return link ? { system: systems.performerDeepLinkSystem, value: link } : undefined;
}

function serviceRequest(o: FixtureSettings, systems: FhirSystems, ids: FixtureIds): ServiceRequest {
  const specialty = o.specialty ? findSpecialty(o.specialty) : undefined;
  return {
    resourceType: 'ServiceRequest',
    id: ids.serviceRequest,
    identifier: [{ system: URI_IDENTIFIER_SYSTEM, value: o.requestIdentifier }],
    status: o.status,
    intent: o.intent,
    code: { coding: [{ system: systems.serviceTypeSystem, code: o.serviceType }] },
    performerType: {
      coding: [
        ...(specialty ? [{ system: systems.specialtySystem, code: specialty.code, display: specialty.display }] : []),
        ...(o.departmentCode ? [{ system: DEPARTMENT_KEY_SYSTEM, code: o.departmentCode, display: `Fachabteilung ${o.departmentCode}` }] : []),
      ],
    },
    subject: ref(ids.patient),
    encounter: ref(ids.encounter),
    requester: ref(ids.requester),
    performer: ids.performers.map((performer) => ref(performer.id)),
    occurrenceDateTime: o.occurrenceDate,
    ...(o.notes.length > 0 ? { note: o.notes.map((text) => ({ text })) } : {}),
    ...(o.orderDetail ? { orderDetail: [{ coding: [{ system: systems.orderDetailSystem, code: o.orderDetail }] }] } : {}),
  };
}

function patient(o: FixtureSettings, id: string): Patient {
  const identifier = [{ system: URI_IDENTIFIER_SYSTEM, value: `${o.fhirBase}/Patient/${id}` }];
  const demographics = { gender: 'female' as const, birthDate: '1956-01-01' };
  if (o.patient === 'masked') {
    const maskedName = { _family: { extension: [{ url: NULL_FLAVOR_EXTENSION, valueCode: MASKED_NULL_FLAVOR }] } } as HumanName;
    const address = [{ postalCode: '10115', city: 'Berlin' }];
    return { resourceType: 'Patient', id, identifier, name: [maskedName], ...demographics, address };
  }
  return {
    resourceType: 'Patient',
    id,
    identifier,
    name: [{ family: 'Musterfrau', given: ['Erika'] }],
    ...demographics,
    address: [{ line: ['Invalidenstraße 117'], postalCode: '10115', city: 'Berlin' }],
    telecom: [{ system: 'phone', value: '+49 30 1234567', use: 'home' }],
  };
}

function coverage(id: string, beneficiary: { reference: string }): Coverage {
  return {
    resourceType: 'Coverage',
    id,
    status: 'active',
    type: { coding: [{ system: INSURANCE_TYPE_SYSTEM, code: 'GKV' }] },
    beneficiary,
    payor: [{ identifier: { system: IK_NUMBER_SYSTEM, value: '109519005' }, display: 'AOK Nordost' }],
  };
}

function encounter(id: string, subject: { reference: string }, serviceProvider: { reference: string }): Encounter {
  return {
    resourceType: 'Encounter',
    id,
    status: 'in-progress',
    class: { system: ACT_CODE_SYSTEM, code: 'IMP' },
    subject,
    serviceProvider,
    period: { start: '2026-11-15' },
  };
}

const DIAGNOSES = [
  { code: 'S72.01', display: 'Schenkelhalsfraktur: Intrakapsulär' },
  { code: 'I10.00', display: 'Benigne essentielle Hypertonie' },
  { code: 'E11.90', display: 'Diabetes mellitus, Typ 2' },
] as const;

function condition(id: string, diagnosis: (typeof DIAGNOSES)[number], subject: { reference: string }, encounterRef: { reference: string }): Condition {
  return {
    resourceType: 'Condition',
    id,
    code: { coding: [{ system: ICD10GM_SYSTEM, version: '2025', ...diagnosis }] },
    subject,
    encounter: encounterRef,
    recordedDate: '2026-11-18',
  };
}

const MEASUREMENTS = [
  { loinc: '29463-7', display: 'Body weight', value: 72.5, unit: 'kg' },
  { loinc: '8302-2', display: 'Body height', value: 168, unit: 'cm' },
] as const;

function observation(id: string, measurement: (typeof MEASUREMENTS)[number], subject: { reference: string }): Observation {
  return {
    resourceType: 'Observation',
    id,
    status: 'final',
    code: { coding: [{ system: LOINC_SYSTEM, code: measurement.loinc, display: measurement.display }] },
    subject,
    valueQuantity: { value: measurement.value, unit: measurement.unit, system: UCUM_SYSTEM, code: measurement.unit },
  };
}

function organization(id: string, ik: string, name: string, deepLinkIdentifier?: Identifier): Organization {
  return {
    resourceType: 'Organization',
    id,
    identifier: [{ system: IK_NUMBER_SYSTEM, value: ik }, ...(deepLinkIdentifier ? [deepLinkIdentifier] : [])],
    name,
  };
}
