import type { ClinicRecord, Submitter } from '@bedrequest/contracts';
import { admissionRequestSummary, DEFAULT_PROFILE_BASE, fhirSystems, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { historyOf } from '../tasks';
import { delivered, documentsOf } from './document-submission';
import type { FingerprintedCommand } from './intake-commands';
import { RequestBatch } from './request-batch';
import type { BatchChanges } from './request-records';

const [A, B] = FIXTURE_PERFORMER_IKS;
const C = '510000003';
const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/documents-reopen`;
const orthopaedics = { code: '2300', specialty: 'orthopaedics', display: 'Orthopädie' };
const clinics = new Map<string, ClinicRecord>([A, B, C].map((ik) => [ik, { ik, name: `Rehaklinik ${ik}`, departments: [orthopaedics] }]));
const systems = fhirSystems(DEFAULT_PROFILE_BASE);
const referrer: Submitter = { partyId: 'referrer-user', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const meta = (messageId: string) => ({ messageId, messageType: 'test', correlationId: 'c-1' });

function admission(): FingerprintedCommand {
  const validated = validateAdmissionRequestBundle(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A, B, C] }), {
    profileBase: DEFAULT_PROFILE_BASE,
  });
  if (!validated.ok) throw new Error('the fixture is not a valid bundle');
  return {
    kind: 'admission',
    meta: meta('m-1'),
    submitter: referrer,
    bundle: validated.bundle.bundle as unknown as Record<string, unknown>,
    request: admissionRequestSummary(validated.bundle),
    fingerprint: { value: 'h-1', bytes: 1_000 },
  };
}

const documents = (): FingerprintedCommand => ({
  kind: 'document',
  meta: meta('m-9'),
  submitter: referrer,
  bundle: documentBundle({ requestIdentifier: identifier }) as unknown as Record<string, unknown>,
  requestIdentifier: identifier,
  fingerprint: { value: 'h-9', bytes: 500 },
});

/** The next batch, on the request created first and the Tasks as the previous batch wrote them. */
function next(created: BatchChanges, previous: BatchChanges, now: string): RequestBatch {
  return new RequestBatch(
    { requests: created.createdRequests.map((request) => ({ ...request })), tasks: previous.tasks.map((task) => ({ ...task })), documents: [] },
    { clinics, systems, now: new Date(now) },
  );
}

describe('documents delivered to a request', () => {
  it('reopen the Task of the clinic that asked for more data, marked, and change every other Task that receives them, without a message', () => {
    const first = new RequestBatch({ requests: [], tasks: [], documents: [] }, { clinics, systems, now: new Date('2026-11-22T10:00:00Z') });
    first.apply(admission());
    const created = first.result();
    const taskOf = (changes: BatchChanges, ik: string) => changes.tasks.find((task) => task.clinicIk === ik)!;
    const answering = next(created, created, '2026-11-22T11:00:00Z');
    const answer = (ik: string, businessStatus: 'more-data-required' | 'accepted' | 'declined', note?: string) =>
      answering.apply({
        kind: 'answer',
        meta: meta(`m-${ik}`),
        answer: { taskId: taskOf(created, ik).id, clinicIk: ik, businessStatus, source: 'clinic', user: 'u-1', userName: 'Anna', ...(note ? { note } : {}) },
      });
    expect(answer(A, 'more-data-required', 'Bitte den Arztbrief').outcome).toBe('accepted');
    expect(answer(B, 'accepted').outcome).toBe('accepted');
    const answered = answering.result();

    const delivering = next(created, { ...answered, tasks: [...answered.tasks, taskOf(created, C)] }, '2026-11-22T12:00:00Z');
    expect(delivering.apply(documents()).outcome).toBe('accepted');
    const after = delivering.result();

    const a = taskOf(after, A);
    expect(a).toMatchObject({ status: 'requested', businessStatus: 'more-data-required', lastModified: new Date('2026-11-22T12:00:00Z') });
    expect(a.documentsSuppliedAt).toEqual(new Date('2026-11-22T12:00:00Z'));
    expect(a.revision).toBe(taskOf(answered, A).revision + 1);
    expect(historyOf(a.notes, a.history ?? [], A).slice(0, 2)).toEqual([
      { kind: 'documents', at: '2026-11-22T12:00:00.000Z', count: 1, kinds: ['Arztbrief'], reopened: true },
      {
        kind: 'answer',
        at: '2026-11-22T11:00:00.000Z',
        businessStatus: 'more-data-required',
        note: 'Bitte den Arztbrief',
        author: { type: 'Practitioner', user: 'u-1', display: 'Anna' },
      },
    ]);

    const b = taskOf(after, B);
    expect(b).toMatchObject({ status: 'accepted', businessStatus: 'accepted', lastModified: new Date('2026-11-22T12:00:00Z') });
    expect(b.documentsSuppliedAt ?? null).toBeNull();
    expect(b.history?.at(-1)).toMatchObject({ kind: 'documents', reopened: false });
    // Not answered yet: stays requested, unmarked, but changed.
    expect(taskOf(after, C)).toMatchObject({ status: 'requested', lastModified: new Date('2026-11-22T12:00:00Z') });
    expect(taskOf(after, C).documentsSuppliedAt ?? null).toBeNull();
    // The clinic did not answer: no AdmissionResponse; no new version for routing.
    expect(after.outbox).toEqual([]);
    expect(after.versions).toEqual([]);

    // The next answer ends the mark.
    const again = next(created, after, '2026-11-22T13:00:00Z');
    again.apply({ kind: 'answer', meta: meta('m-again'), answer: { taskId: a.id, clinicIk: A, businessStatus: 'accepted', source: 'clinic', user: 'u-2' } });
    const reanswered = taskOf(again.result(), A);
    expect(reanswered).toMatchObject({ status: 'accepted', documentsSuppliedAt: null });
    expect(historyOf(reanswered.notes, reanswered.history ?? [], A)[0]).toEqual({
      kind: 'answer',
      at: '2026-11-22T13:00:00.000Z',
      businessStatus: 'accepted',
      author: { type: 'Practitioner', user: 'u-2' },
    });
  });
});

describe('delivered', () => {
  it('reopens only a Task waiting after "more-data-required", and leaves cancelled ones out', () => {
    expect(delivered({ status: 'on-hold', businessStatus: 'more-data-required' })).toEqual({ status: 'requested', reopened: true });
    expect(delivered({ status: 'requested', businessStatus: 'more-data-required' })).toEqual({ status: 'requested', reopened: true });
    expect(delivered({ status: 'on-hold', businessStatus: 'query' })).toEqual({ status: 'on-hold', reopened: false });
    expect(delivered({ status: 'accepted', businessStatus: 'accepted' })).toEqual({ status: 'accepted', reopened: false });
    expect(delivered({ status: 'rejected', businessStatus: 'declined' })).toEqual({ status: 'rejected', reopened: false });
    expect(delivered({ status: 'requested', businessStatus: null })).toEqual({ status: 'requested', reopened: false });
    expect(delivered({ status: 'in-progress', businessStatus: 'more-data-required' })).toEqual({ status: 'in-progress', reopened: false });
    expect(delivered({ status: 'cancelled', businessStatus: 'more-data-required' })).toBeUndefined();
  });
});

describe('documentsOf', () => {
  it('counts the DocumentReferences and names their kinds by type, else title, distinct', () => {
    const bundle = {
      entry: [
        { resource: { resourceType: 'Composition' } },
        { resource: { resourceType: 'DocumentReference', type: { text: 'Entlassbrief' } } },
        { resource: { resourceType: 'DocumentReference', type: { coding: [{ code: '11488-4', display: 'Konsilbericht' }] } } },
        { resource: { resourceType: 'DocumentReference', content: [{ attachment: { title: ' Röntgenbefund ' } }] } },
        { resource: { resourceType: 'DocumentReference', type: { text: 'Entlassbrief' } } },
        { resource: { resourceType: 'DocumentReference' } },
      ],
    };
    expect(documentsOf(bundle)).toEqual({ count: 5, kinds: ['Entlassbrief', 'Konsilbericht', 'Röntgenbefund'] });
    expect(documentsOf({})).toEqual({ count: 0, kinds: [] });
  });
});
