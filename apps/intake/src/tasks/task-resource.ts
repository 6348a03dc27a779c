import type { BusinessStatus, FhirTask, TaskStatus } from '@bedrequest/contracts';
import { ADMISSION_RESPONSE_STATUSES, IK_NUMBER_SYSTEM, URI_IDENTIFIER_SYSTEM, type FhirSystems } from '@bedrequest/fhir-model';

export interface TaskNote {
  text: string;
  time: string;
}

/** A clinic_task row with what the FHIR Task needs of its request. */
export interface ClinicTaskView {
  id: string;
  clinicIk: string;
  status: TaskStatus;
  businessStatus: BusinessStatus | null;
  notes: TaskNote[];
  authoredOn: Date;
  lastModified: Date;
  requestIdentifier: string;
  referrerIk: string;
}

/**
 * The FHIR Task of docs/decisions.md ("Tasks: the state of each (request, clinic) pair"): what the Task
 * reads answer and what admission.response.v1 carries (the contract `FhirTask`, whose keys are in
 * the order written here).
 */
export function toFhirTask(task: ClinicTaskView, systems: FhirSystems): FhirTask {
  const lastModified = task.lastModified.toISOString();
  return {
    resourceType: 'Task',
    id: task.id,
    meta: { lastUpdated: lastModified },
    status: task.status,
    intent: 'order',
    basedOn: [{ identifier: { system: URI_IDENTIFIER_SYSTEM, value: task.requestIdentifier } }],
    owner: { identifier: { system: IK_NUMBER_SYSTEM, value: task.clinicIk } },
    requester: { identifier: { system: IK_NUMBER_SYSTEM, value: task.referrerIk } },
    authoredOn: task.authoredOn.toISOString(),
    lastModified,
    ...(task.businessStatus
      ? {
          businessStatus: {
            coding: [
              {
                system: systems.admissionResponseStatusSystem,
                code: task.businessStatus,
                display: ADMISSION_RESPONSE_STATUSES[task.businessStatus],
              },
            ],
          },
        }
      : {}),
    ...(task.notes.length ? { note: task.notes.map((note) => ({ text: note.text, time: note.time })) } : {}),
  };
}
