import { randomUUID } from 'node:crypto';
import type { BusinessStatus, FhirTask, TaskStatus } from '@bedrequest/contracts';
import { ADMISSION_RESPONSE_STATUSES } from '../codes';
import { fhirSystems, IK_NUMBER_SYSTEM, URI_IDENTIFIER_SYSTEM } from '../systems';
import { FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK, FIXTURE_TIMESTAMP } from './admission-request-bundle';

export interface FhirTaskFixtureOptions {
  id?: string;
  /** Default: `{FIXTURE_FHIR_BASE}/ServiceRequest/<new uuid>`. */
  requestIdentifier?: string;
  clinicIk?: string;
  requesterIk?: string;
  /** The clinic's answer; none by default. */
  businessStatus?: BusinessStatus;
  /** Default: what the answer makes of the Task (docs/decisions.md, "Tasks"), `requested` without one. */
  status?: TaskStatus;
  notes?: readonly string[];
  /** Every timestamp of the Task. */
  at?: string;
}

const STATUS_AFTER: Record<BusinessStatus, TaskStatus> = { accepted: 'accepted', declined: 'rejected', query: 'on-hold', 'more-data-required': 'on-hold' };

/**
 * A FHIR Task as intake writes it (the contract `FhirTask` of admission.response.v1 and of the Task
 * reads), for tests of the services that receive one.
 */
export function fhirTask(options: FhirTaskFixtureOptions = {}): FhirTask {
  const at = options.at ?? FIXTURE_TIMESTAMP;
  const { businessStatus } = options;
  return {
    resourceType: 'Task',
    id: options.id ?? randomUUID(),
    meta: { lastUpdated: at },
    status: options.status ?? (businessStatus ? STATUS_AFTER[businessStatus] : 'requested'),
    intent: 'order',
    basedOn: [{ identifier: { system: URI_IDENTIFIER_SYSTEM, value: options.requestIdentifier ?? `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}` } }],
    owner: { identifier: { system: IK_NUMBER_SYSTEM, value: options.clinicIk ?? FIXTURE_PERFORMER_IKS[0] } },
    requester: { identifier: { system: IK_NUMBER_SYSTEM, value: options.requesterIk ?? FIXTURE_REQUESTER_IK } },
    authoredOn: at,
    lastModified: at,
    ...(businessStatus
      ? {
          businessStatus: {
            coding: [{ system: fhirSystems().admissionResponseStatusSystem, code: businessStatus, display: ADMISSION_RESPONSE_STATUSES[businessStatus] }],
          },
        }
      : {}),
    ...(options.notes?.length ? { note: options.notes.map((text) => ({ text, time: at })) } : {}),
  };
}
