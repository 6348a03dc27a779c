import { randomUUID } from 'node:crypto';
import { AdmissionResponseV1, RequestDispatchedV1, type AdmissionRequestSummary, type AnswerSource, type Submitter } from '@bedrequest/contracts';
import type { FhirSystems } from '@bedrequest/fhir-model';
import { outboxRecord, type MessageMeta, type OutboxRecord } from '@bedrequest/messaging';
import { toFhirTask } from '../tasks';
import type { StoredRequest, StoredTask } from './request-records';

// The messages a batch causes, written to the outbox with its changes.

/** request.dispatched.v1: a new version of a request, for routing to fan out to its clinics. */
export function dispatchedRecord(
  submitted: AdmissionRequestSummary,
  submitter: Submitter,
  change: { version: number; change: RequestDispatchedV1['change']; tasks: RequestDispatchedV1['tasks'] },
  meta: MessageMeta,
): OutboxRecord<typeof RequestDispatchedV1> {
  return outboxRecord(
    RequestDispatchedV1,
    {
      requestIdentifier: submitted.identifier,
      referrerPartyId: submitter.partyId,
      version: change.version,
      change: change.change,
      departmentCode: submitted.departmentCode,
      ...(submitted.specialty ? { specialty: submitted.specialty } : {}),
      ...(submitted.occurrenceDate ? { occurrenceDate: submitted.occurrenceDate } : {}),
      tasks: change.tasks,
    },
    meta,
  );
}

/**
 * admission.response.v1 for the Task as it is now: the webhook to the referrer, and routing's cue.
 * The referrer's Task: its notes name no author (the clinic's staff are the clinic's, docs/api.md, "Tasks").
 */
export function responseRecord(
  request: StoredRequest,
  task: StoredTask,
  context: { systems: FhirSystems; meta: MessageMeta; source: AnswerSource },
): OutboxRecord<typeof AdmissionResponseV1> {
  const fhirTask = toFhirTask({ ...task, requestIdentifier: request.identifier, referrerIk: request.referrerIk }, context.systems, { authors: false });
  return outboxRecord(
    AdmissionResponseV1,
    { eventId: randomUUID(), referrerPartyId: request.referrerPartyId, requestIdentifier: request.identifier, task: fhirTask, source: context.source },
    context.meta,
  );
}
