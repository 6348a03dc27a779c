import { randomUUID } from 'node:crypto';
import type { Bundle, Resource, ServiceRequest } from '@medplum/fhirtypes';
import { findSpecialty } from '../specialties';
import { DEPARTMENT_KEY_SYSTEM, fhirSystems, type FhirSystems, URI_IDENTIFIER_SYSTEM } from '../systems';
import { formUuid, urnUuid } from './ids';
import { germanDate } from './messages';
import { condition, coverage, encounter, type LocalReference, MEASUREMENTS, observation, organization, patient } from './resources';
import type { RequestForm } from './schema';

export interface BuildAdmissionRequestOptions {
  /** `{profile_base}` of the profiles and code systems (docs/decisions.md, "Placeholders": `PROFILE_BASE`). */
  profileBase: string;
  /** `Bundle.timestamp`, and the day a diagnosis without a recorded date is recorded. Default: now. */
  now?: Date;
}

/** `<fhirBase>/ServiceRequest/<uuid>`: the identifier of a new request of the referrer whose registered FHIR base is `fhirBase`. */
export function requestIdentifierFor(fhirBase: string, id: string = randomUUID()): string {
  return `${fhirBase.replace(/\/+$/, '')}/ServiceRequest/${id}`;
}

/** The referrer's FHIR base, which begins the request identifier; the Patient's identifier is made under it. */
export function fhirBaseOf(requestIdentifier: string): string {
  const at = requestIdentifier.lastIndexOf('/ServiceRequest/');
  return at > 0 ? requestIdentifier.slice(0, at) : requestIdentifier;
}

/**
 * The AdmissionRequestBundle of a request form (parse the form with `RequestForm` first): the
 * ServiceRequest, Patient, Coverage and Encounter when given, a Condition per diagnosis, an
 * Observation per measurement, then the Organizations of the requester and of each requested clinic,
 * in that order (the spec's examples). Resource ids are derived from the request identifier, the
 * Bundle's id from it and the transmission number: the same form and time give the same JSON, and a
 * supplement keeps the ids of the version before.
 */
export function buildAdmissionRequestBundle(form: RequestForm, options: BuildAdmissionRequestOptions): Bundle {
  const systems = fhirSystems(options.profileBase);
  const now = options.now ?? new Date();
  const id = (role: string) => formUuid(form.requestIdentifier, role);
  const ids = {
    serviceRequest: id('ServiceRequest'),
    patient: id('Patient'),
    encounter: form.stay ? id('Encounter') : undefined,
    requester: id(`requester/${form.requester.ik}`),
    performers: form.performers.map((clinic) => id(`performer/${clinic.ik}`)),
  };
  // A new object at each use: whoever changes one reference of the bundle must not change the others.
  const toPatient = (): LocalReference => ref(ids.patient);
  const toEncounter = () => (ids.encounter ? ref(ids.encounter) : undefined);
  const today = germanDate(now);

  const resources: Resource[] = [
    serviceRequest(form, systems, ids),
    patient(form, ids.patient, fhirBaseOf(form.requestIdentifier)),
    ...(form.coverage ? [coverage(form.coverage, id('Coverage'), toPatient())] : []),
    ...(form.stay && ids.encounter ? [encounter(form.stay, ids.encounter, toPatient(), ref(ids.requester))] : []),
    ...form.diagnoses.map((diagnosis) => condition(diagnosis, id(`Condition/${diagnosis.code}`), toPatient(), toEncounter(), today)),
    ...MEASUREMENTS.flatMap((measurement) => {
      const value = form[measurement.field];
      return value === undefined ? [] : [observation(measurement, value, id(`Observation/${measurement.loinc}`), toPatient())];
    }),
    organization(ids.requester, form.requester.ik, form.requester.name),
    ...form.performers.map((clinic, index) =>
      organization(
        ids.performers[index] ?? '',
        clinic.ik,
        clinic.name,
        clinic.deepLink ? { system: systems.performerDeepLinkSystem, value: clinic.deepLink } : undefined,
      ),
    ),
  ];
  return {
    resourceType: 'Bundle',
    id: formUuid(form.requestIdentifier, form.transmissionNumber, 'Bundle'),
    meta: { profile: [systems.admissionRequestBundleProfile] },
    identifier: { system: systems.admissionRequestNamingSystem, value: form.transmissionNumber },
    type: 'collection',
    timestamp: now.toISOString(),
    entry: resources.map((resource) => ({ fullUrl: urnUuid(resource.id ?? ''), resource })),
  };
}

const ref = (uuid: string): LocalReference => ({ reference: urnUuid(uuid) });

interface RequestIds {
  serviceRequest: string;
  patient: string;
  encounter: string | undefined;
  requester: string;
  performers: string[];
}

/**
 * The ServiceRequest: a proposal to every clinic named, or the selection (`intent: order`,
 * orderDetail `selected-provider`) of the one clinic named (docs/decisions.md, "Requests").
 */
function serviceRequest(form: RequestForm, systems: FhirSystems, ids: RequestIds): ServiceRequest {
  const notes = form.notes ?? [];
  return {
    resourceType: 'ServiceRequest',
    id: ids.serviceRequest,
    ...(form.answerDeadline ? { extension: [{ url: systems.answerDeadlineExtension, valueDateTime: form.answerDeadline }] } : {}),
    identifier: [{ system: URI_IDENTIFIER_SYSTEM, value: form.requestIdentifier }],
    status: 'active',
    intent: form.stage === 'selection' ? 'order' : 'proposal',
    code: { coding: [{ system: systems.serviceTypeSystem, code: form.serviceType }] },
    performerType: { coding: performerTypeCodings(form, systems) },
    subject: ref(ids.patient),
    ...(ids.encounter ? { encounter: ref(ids.encounter) } : {}),
    requester: ref(ids.requester),
    performer: ids.performers.map(ref),
    occurrenceDateTime: form.desiredAdmissionDate,
    ...(notes.length > 0 ? { note: notes.map((text) => ({ text })) } : {}),
    ...(form.stage === 'selection' ? { orderDetail: [{ coding: [{ system: systems.orderDetailSystem, code: 'selected-provider' }] }] } : {}),
  };
}

/**
 * The specialty and the department key (spec, ServiceRequest, "performerType.coding rules"). A
 * specialty alone brings its department key along, as the spec's examples do, so that a receiver
 * reading only the key routes it the same.
 */
function performerTypeCodings(form: RequestForm, systems: FhirSystems) {
  const specialty = form.specialty ? findSpecialty(form.specialty) : undefined;
  const departmentKey = form.departmentKey ?? specialty?.department;
  return [
    ...(specialty ? [{ system: systems.specialtySystem, code: specialty.code, display: specialty.display }] : []),
    ...(departmentKey ? [{ system: DEPARTMENT_KEY_SYSTEM, code: departmentKey, display: `Fachabteilung ${departmentKey}` }] : []),
  ];
}
