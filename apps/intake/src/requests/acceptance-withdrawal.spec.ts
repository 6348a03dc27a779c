import type { ClinicAnswerSubmittedV1, ClinicRecord, FhirTask } from '@bedrequest/contracts';
import { DEFAULT_PROFILE_BASE, fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { taskTagOf } from '../tasks';
import { RequestBatch } from './request-batch';
import type { StoredRequest, StoredTask } from './request-records';

// The selected clinic withdraws its acceptance (docs/decisions.md, "Clinics answer"), as one batch applies it.

const [A, B] = FIXTURE_PERFORMER_IKS;
const TASK_A = '7b0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c22';
const TASK_B = '0f6c2a57-8d1e-4b0a-a1f3-5e2c9b7d4a10';
const before = new Date('2026-11-21T09:00:00Z');
const now = new Date('2026-11-22T10:00:00Z');
const clinics = new Map<string, ClinicRecord>(
  [A, B].map((ik) => [ik, { ik, name: `Klinik ${ik}`, departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] }]),
);
const REASON = 'Das zugesagte Bett ist durch einen Notfall belegt.';

/** A batch that loaded one request at version 3 with clinic A selected (its Task in progress) and B's Task cancelled by the selection. */
function selected(): { sut: RequestBatch; request: StoredRequest; taskA: StoredTask } {
  const request: StoredRequest = {
    id: 'request-1',
    identifier: `${FIXTURE_FHIR_BASE}/ServiceRequest/withdrawal`,
    referrerPartyId: 'referrer-party',
    referrerIk: FIXTURE_REQUESTER_IK,
    status: 'active',
    intent: 'order',
    selectedClinicIk: A,
    currentVersion: 3,
    latestHash: 'h-3',
    createdAt: before,
    updatedAt: before,
    documentCount: 0,
    storedBytes: 0,
  };
  const task = (id: string, clinicIk: string, fields: Partial<StoredTask>): StoredTask => ({
    id,
    requestId: request.id,
    clinicIk,
    status: 'requested',
    businessStatus: 'accepted',
    notes: [],
    sentVersion: 3,
    authoredOn: before,
    lastModified: before,
    cancelledAt: null,
    revision: 2,
    ...fields,
  });
  const taskA = task(TASK_A, A, { status: 'in-progress', notes: [{ text: 'Zusage', time: before.toISOString(), author: { source: 'clinic', user: 'u-1' } }] });
  const taskB = task(TASK_B, B, { status: 'cancelled', cancelledAt: before, sentVersion: 2 });
  return {
    sut: new RequestBatch({ requests: [request], tasks: [taskA, taskB], documents: [] }, { clinics, systems: fhirSystems(DEFAULT_PROFILE_BASE), now }),
    request,
    taskA,
  };
}

let messages = 0;
const send = (sut: RequestBatch, fields: Partial<Extract<ClinicAnswerSubmittedV1, { source: 'clinic' }>>) =>
  sut.apply({
    kind: 'answer',
    meta: { messageId: `m-${++messages}`, messageType: 'clinic.answer.submitted.v1', correlationId: 'c-1' },
    answer: { taskId: TASK_A, clinicIk: A, businessStatus: 'declined', source: 'clinic', user: 'u-2', userName: 'Jana Schulz', ...fields },
  });
const withdraw = (sut: RequestBatch, fields: Partial<Extract<ClinicAnswerSubmittedV1, { source: 'clinic' }>> = {}) =>
  send(sut, { withdrawsAcceptance: true, note: REASON, ...fields });

describe('the selected clinic withdraws its acceptance', () => {
  it('lifts the selection without a new version, and rejects its Task with the reason as a note of the person', () => {
    const { sut } = selected();

    const verdict = withdraw(sut);

    expect(verdict.outcome).toBe('accepted');
    const changes = sut.result();
    expect(changes.changedRequests).toEqual([
      expect.objectContaining({
        intent: 'proposal',
        status: 'active',
        selectedClinicIk: null,
        currentVersion: 3,
        expectedVersion: 3,
        latestHash: '',
        updatedAt: now,
      }),
    ]);
    expect(changes.versions).toEqual([]);
    expect(changes.tasks).toEqual([
      expect.objectContaining({
        id: TASK_A,
        status: 'rejected',
        businessStatus: 'declined',
        lastModified: now,
        revision: 3,
        notes: [
          expect.objectContaining({ text: 'Zusage' }),
          { text: REASON, time: now.toISOString(), author: { source: 'clinic', user: 'u-2', name: 'Jana Schulz' } },
        ],
      }),
    ]);
    // The clinic's reply names who wrote each note; its tag is the Task's new one.
    expect(verdict.task).toMatchObject({ status: 'rejected', lastModified: now.toISOString(), businessStatus: { coding: [{ code: 'declined' }] } });
    expect(verdict.task?.note?.[1]).toMatchObject({ text: REASON, authorReference: { type: 'Practitioner', display: 'Jana Schulz' } });
    expect(verdict.taskTag).toBe(taskTagOf(changes.tasks[0]!));
  });

  it("tells the referrer as an answer of the clinic's own (admission.response.v1, without the author), and audits it as an answer", () => {
    const { sut } = selected();

    withdraw(sut);

    const { outbox, audit } = sut.result();
    expect(outbox.map((record) => record.routingKey)).toEqual(['admission.response.v1']);
    const payload = outbox[0]!.envelope.payload as { source: string; referrerPartyId: string; task: FhirTask };
    expect(payload).toMatchObject({ source: 'clinic', referrerPartyId: 'referrer-party', task: { id: TASK_A, status: 'rejected' } });
    expect(payload.task.note?.[1]).toEqual({ text: REASON, time: now.toISOString() });
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit[0])).toContain(TASK_A);
  });

  it('is refused as a conflict for a Task that is not the selected one, and a second time, changing nothing', () => {
    const { sut } = selected();

    expect(send(sut, { taskId: TASK_B, clinicIk: B, withdrawsAcceptance: true, note: REASON })).toMatchObject({ outcome: 'rejected', refusal: 'conflict' });
    expect(withdraw(sut).outcome).toBe('accepted');
    expect(withdraw(sut)).toMatchObject({ outcome: 'rejected', refusal: 'conflict' });
    expect(sut.result().outbox).toHaveLength(1);
  });

  it('is refused as a failed precondition when the Task changed since it was read', () => {
    const { sut, taskA } = selected();
    const seen = taskTagOf(taskA);
    expect(send(sut, { businessStatus: 'query', note: 'Rückfrage' }).outcome).toBe('accepted');

    expect(withdraw(sut, { ifMatch: [seen] })).toMatchObject({ outcome: 'rejected', refusal: 'precondition-failed' });
    expect(sut.result().changedRequests).toEqual([]);
  });

  it("leaves a selected clinic's plain answer as it was: recorded, the Task in progress, the selection kept", () => {
    const { sut } = selected();

    expect(send(sut, { note: 'Absage' }).outcome).toBe('accepted');

    const changes = sut.result();
    expect(changes.changedRequests).toEqual([]);
    expect(changes.tasks).toEqual([expect.objectContaining({ status: 'in-progress', businessStatus: 'declined' })]);
  });
});
