import type { CodeSystem, CodeSystemConcept } from '@medplum/fhirtypes';
import type { BusinessStatus } from '@bedrequest/contracts';
import {
  ADMISSION_RESPONSE_STATUSES,
  ADMISSION_RESPONSE_STATUS_CODES,
  ORDER_DETAIL_CODES,
  SERVICE_TYPE_CODES,
  type OrderDetailCode,
  type ServiceTypeCode,
} from '../codes';
import { SPECIALTIES } from '../specialties';
import { DEPARTMENT_KEY_SYSTEM, fhirSystems } from '../systems';
import { canonicalMetadata, type ConformanceOptions } from './canonical';

/**
 * The service's own code systems (spec, ServiceRequest; docs/decisions.md, "Requests" and "Tasks") as
 * FHIR R4 CodeSystem resources, built from the code lists the validators check against, so that
 * what is served is what is accepted. Each one is complete: a code not listed is refused.
 *
 * The displays the code lists do not carry themselves are declared here, keyed by the lists' own
 * types: a code added to a list without a display here does not compile.
 */

const SERVICE_TYPE_DISPLAYS = {
  'full-inpatient-rehabilitation': 'Full inpatient rehabilitation',
  'day-patient-rehabilitation': 'Day-patient rehabilitation',
  'follow-up-rehabilitation': 'Follow-up rehabilitation (Anschlussrehabilitation)',
  'early-rehabilitation': 'Early rehabilitation',
} as const satisfies Record<ServiceTypeCode, string>;

const ORDER_DETAILS = {
  'selected-provider': {
    display: 'Selected provider',
    definition: 'The referrer selects the one remaining performer, which had accepted; the other clinics are cancelled.',
  },
  'selected-provider-cancelled': {
    display: 'Selection withdrawn',
    definition: 'The referrer withdraws its selection of the one performer named; the request is a proposal again.',
  },
} as const satisfies Record<OrderDetailCode, Required<Pick<CodeSystemConcept, 'display' | 'definition'>>>;

/** docs/decisions.md, "Tasks": what each answer means for the Task. */
const ADMISSION_RESPONSE_DEFINITIONS = {
  accepted: 'The clinic can admit the patient; the Task becomes accepted.',
  declined: 'The clinic cannot admit the patient; the Task becomes rejected and its note says why.',
  query: 'The clinic has a question, asked in the note; the Task is on hold.',
  'more-data-required': 'The clinic needs more patient data to decide; the Task is on hold.',
} as const satisfies Record<BusinessStatus, string>;

/** The specialty's property naming the hospital department key requests for it are routed to. */
const DEPARTMENT_PROPERTY = 'department';

export function codeSystems(options: ConformanceOptions): CodeSystem[] {
  const systems = fhirSystems(options.profileBase);
  const codeSystem = (
    url: string,
    name: string,
    title: string,
    description: string,
    concept: CodeSystemConcept[],
    extra: Partial<CodeSystem> = {},
  ): CodeSystem => ({
    resourceType: 'CodeSystem',
    ...canonicalMetadata({ url, name, title, description }, options),
    caseSensitive: true,
    content: 'complete',
    count: concept.length,
    ...extra,
    concept,
  });

  return [
    codeSystem(
      systems.serviceTypeSystem,
      'BedrequestServiceType',
      'Kind of rehabilitation requested',
      'ServiceRequest.code of an AdmissionRequestBundle: the kind of measure asked for. Any other code is refused (400).',
      SERVICE_TYPE_CODES.map((code) => ({ code, display: SERVICE_TYPE_DISPLAYS[code] })),
    ),
    codeSystem(
      systems.specialtySystem,
      'Specialty',
      'Rehabilitation specialty',
      'ServiceRequest.performerType: the specialty asked for. Each maps to the hospital department key (property `department`) the request is routed by; several specialties may share one.',
      SPECIALTIES.map(({ code, display, department }) => ({
        code,
        display,
        property: [{ code: DEPARTMENT_PROPERTY, valueCoding: { system: DEPARTMENT_KEY_SYSTEM, code: department } }],
      })),
      {
        property: [
          {
            code: DEPARTMENT_PROPERTY,
            description: `The hospital department key (system ${DEPARTMENT_KEY_SYSTEM}) a request for this specialty is routed to.`,
            type: 'Coding',
          },
        ],
      },
    ),
    codeSystem(
      systems.orderDetailSystem,
      'OrderDetailType',
      'Provider selection',
      'ServiceRequest.orderDetail: the selection of a clinic (with intent order) and its withdrawal.',
      ORDER_DETAIL_CODES.map((code) => ({ code, ...ORDER_DETAILS[code] })),
    ),
    codeSystem(
      systems.admissionResponseStatusSystem,
      'AdmissionResponseStatus',
      "The clinic's answer",
      "Task.businessStatus: the clinic's latest answer to an admission request.",
      ADMISSION_RESPONSE_STATUS_CODES.map((code) => ({
        code,
        display: ADMISSION_RESPONSE_STATUSES[code],
        definition: ADMISSION_RESPONSE_DEFINITIONS[code],
      })),
    ),
  ];
}
