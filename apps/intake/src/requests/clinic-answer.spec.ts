import type { ClinicAnswerSubmittedV1, ClinicRecord } from '@bedrequest/contracts';
import { DEFAULT_PROFILE_BASE, fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { taskTagOf } from '../tasks';
import { RequestBatch } from './request-batch';
import type { StoredRequest, StoredTask } from './request-records';

const [A] = FIXTURE_PERFORMER_IKS;
const TASK_ID = '7b0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c22';
const now = new Date('2026-11-22T10:00:00Z');
const clinics = new Map<string, ClinicRecord>([
  [A, { ik: A, name: 'Rehaklinik', departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] }],
]);

/** A batch that loaded one request, sent to clinic A at version 2, whose Task changed three times before. */
function batchWith(task: Partial<StoredTask> = {}): { sut: RequestBatch; task: StoredTask } {
  const request: StoredRequest = {
    id: 'request-1',
    identifier: `${FIXTURE_FHIR_BASE}/ServiceRequest/if-match`,
    referrerPartyId: 'referrer-party',
    referrerIk: FIXTURE_REQUESTER_IK,
    status: 'active',
    intent: 'proposal',
    selectedClinicIk: null,
    currentVersion: 2,
    latestHash: 'h-2',
    createdAt: now,
    updatedAt: now,
    documentCount: 0,
    storedBytes: 0,
  };
  const stored: StoredTask = {
    id: TASK_ID,
    requestId: request.id,
    clinicIk: A,
    status: 'requested',
    businessStatus: null,
    notes: [],
    sentVersion: 2,
    authoredOn: now,
    lastModified: now,
    cancelledAt: null,
    revision: 3,
    ...task,
  };
  return {
    sut: new RequestBatch({ requests: [request], tasks: [stored], documents: [] }, { clinics, systems: fhirSystems(DEFAULT_PROFILE_BASE), now }),
    task: stored,
  };
}

let messages = 0;
const answer = (sut: RequestBatch, fields: Partial<Extract<ClinicAnswerSubmittedV1, { source: 'clinic' }>>) =>
  sut.apply({
    kind: 'answer',
    meta: { messageId: `m-${++messages}`, messageType: 'clinic.answer.submitted.v1', correlationId: 'c-1' },
    answer: { taskId: TASK_ID, clinicIk: A, businessStatus: 'accepted', source: 'clinic', user: 'clinic-user', ...fields },
  });

describe('a clinic\'s answer with If-Match (docs/api.md, "Clinic API")', () => {
  it("is taken while the Task has the tag it names, and answers the Task's new tag", () => {
    const { sut, task } = batchWith();
    const seen = taskTagOf(task);

    const verdict = answer(sut, { ifMatch: ['another', seen] });

    expect(verdict.outcome).toBe('accepted');
    expect(verdict.taskTag).toBe(taskTagOf(sut.result().tasks[0]!));
    expect(verdict.taskTag).not.toBe(seen);
    expect(verdict.taskTag).toMatch(/^2-4-/);
  });

  it('is refused as a failed precondition, with the current tag, changing nothing, when the Task has another tag', () => {
    const { sut, task } = batchWith();

    const verdict = answer(sut, { ifMatch: ['2-2-abcdef'] });

    expect(verdict).toMatchObject({ outcome: 'rejected', refusal: 'precondition-failed', taskTag: taskTagOf(task) });
    expect(sut.result()).toMatchObject({ tasks: [], outbox: [], audit: [] });
  });

  it('refuses the second of two answers on the same tag in one batch: the first changed the Task', () => {
    const { sut, task } = batchWith();
    const seen = taskTagOf(task);

    expect(answer(sut, { businessStatus: 'declined', note: 'Kein Bett', ifMatch: [seen] }).outcome).toBe('accepted');
    expect(answer(sut, { businessStatus: 'accepted', ifMatch: [seen] })).toMatchObject({ outcome: 'rejected', refusal: 'precondition-failed' });
    expect(sut.result().tasks[0]).toMatchObject({ businessStatus: 'declined', revision: 4 });
  });

  it("gives a Task that two answers in one batch changed another tag than the first answer's reply named", () => {
    const { sut, task } = batchWith();

    const first = answer(sut, { businessStatus: 'declined', ifMatch: [taskTagOf(task)] });
    expect(answer(sut, { businessStatus: 'accepted' }).outcome).toBe('accepted');

    expect(answer(sut, { businessStatus: 'query', note: '?', ifMatch: [first.taskTag!] })).toMatchObject({ refusal: 'precondition-failed' });
  });

  it('is taken without If-Match on whatever the Task is now, as before', () => {
    const { sut } = batchWith({ businessStatus: 'declined', status: 'rejected' });

    expect(answer(sut, { businessStatus: 'accepted' }).outcome).toBe('accepted');
  });

  it('is refused as a conflict, not a failed precondition, for a cancelled Task, whatever it names', () => {
    const { sut } = batchWith({ status: 'cancelled', cancelledAt: now });

    expect(answer(sut, { ifMatch: ['2-2-abcdef'] })).toMatchObject({ outcome: 'rejected', refusal: 'conflict' });
  });
});
