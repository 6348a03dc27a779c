import type { ClinicRecord, Submitter } from '@bedrequest/contracts';
import { DataKeyring, type FingerprintKey } from '@bedrequest/crypto';
import { MemoryKeyStore, kekSet, newKek } from '@bedrequest/crypto/testing';
import { admissionRequestSummary, DEFAULT_PROFILE_BASE, fhirSystems, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { bundleFingerprint } from './bundle-fingerprint';
import type { FingerprintedCommand } from './intake-commands';
import { RequestBatch } from './request-batch';

const [A] = FIXTURE_PERFORMER_IKS;
const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/audit-agents`;
const orthopaedics = { code: '2300', specialty: 'orthopaedics', display: 'Orthopädie' };
const clinics = new Map<string, ClinicRecord>(FIXTURE_PERFORMER_IKS.map((ik) => [ik, { ik, name: `Rehaklinik ${ik}`, departments: [orthopaedics] }]));
const meta = (messageId: string) => ({ messageId, messageType: 'test', correlationId: 'c-1' });
/** A bundle whose stored hash would be `hash`. */
const hashed = (hash: string) => ({ value: hash, bytes: 1_000 });

function admission(submitter: Submitter): FingerprintedCommand {
  const validated = validateAdmissionRequestBundle(admissionRequestBundle({ requestIdentifier: identifier }), { profileBase: DEFAULT_PROFILE_BASE });
  if (!validated.ok) throw new Error('the fixture is not a valid bundle');
  return {
    kind: 'admission',
    meta: meta('m-1'),
    submitter,
    bundle: validated.bundle.bundle as unknown as Record<string, unknown>,
    request: admissionRequestSummary(validated.bundle),
    fingerprint: hashed('h-1'),
  };
}

/** A batch that creates the request, then applies the rest; the agents of the entries it records. */
function agentsOf(submitter: Submitter, answer?: { source: 'clinic'; user: string; clientAddress?: string } | { source: 'automatic'; answersVersion: number }) {
  const sut = new RequestBatch(
    { requests: [], tasks: [], documents: [] },
    { clinics, systems: fhirSystems(DEFAULT_PROFILE_BASE), now: new Date('2026-11-22T10:00:00Z') },
  );
  expect(sut.apply(admission(submitter)).outcome).toBe('accepted');
  const document = documentBundle({ requestIdentifier: identifier }) as unknown as Record<string, unknown>;
  expect(
    sut.apply({ kind: 'document', meta: meta('m-2'), submitter, bundle: document, requestIdentifier: identifier, fingerprint: hashed('h-2') }).outcome,
  ).toBe('accepted');
  if (answer) {
    const taskId = sut.result().tasks.find((task) => task.clinicIk === A)!.id;
    expect(sut.apply({ kind: 'answer', meta: meta('m-3'), answer: { taskId, clinicIk: A, businessStatus: 'accepted', ...answer } }).outcome).toBe('accepted');
  }
  return sut.result().audit.map((entry) => entry.resource.agent[0]);
}

const referrer: Submitter = { partyId: 'referrer-user', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };

describe('the agents of the changes a batch records', () => {
  it("name the referrer's user and address for its request and documents, and the clinic's for its answer", () => {
    const [created, documented, answered] = agentsOf(
      { ...referrer, clientAddress: '192.0.2.10' },
      { source: 'clinic', user: 'clinic-user', clientAddress: '2001:db8::7' },
    );
    expect(created).toMatchObject({
      altId: 'referrer-user',
      network: { address: '192.0.2.10', type: '2' },
      who: { identifier: { value: FIXTURE_REQUESTER_IK } },
    });
    expect(documented).toMatchObject({ altId: 'referrer-user', network: { address: '192.0.2.10', type: '2' } });
    expect(answered).toMatchObject({
      role: [{ text: 'clinic' }],
      altId: 'clinic-user',
      network: { address: '2001:db8::7', type: '2' },
      who: { identifier: { value: A } },
    });
  });

  it('leave out an address the gateway did not know', () => {
    const [created, documented, answered] = agentsOf(referrer, { source: 'clinic', user: 'clinic-user' });
    expect(created).toMatchObject({ altId: 'referrer-user' });
    expect(created).not.toHaveProperty('network');
    expect(documented).not.toHaveProperty('network');
    expect(answered).toMatchObject({ role: [{ text: 'clinic' }], altId: 'clinic-user', who: { identifier: { value: A } } });
    expect(answered).not.toHaveProperty('network');
  });

  it("record an automatic answer as the service's", () => {
    const [, , answered] = agentsOf(referrer, { source: 'automatic', answersVersion: 1 });
    expect(answered).toMatchObject({ role: [{ text: 'service' }], who: { display: 'routing' } });
    expect(answered).not.toHaveProperty('altId');
    expect(answered).not.toHaveProperty('network');
  });
});

describe('a document sent again', () => {
  const stored = {
    id: 'r-1',
    identifier,
    referrerPartyId: referrer.partyId,
    referrerIk: FIXTURE_REQUESTER_IK,
    status: 'active' as const,
    intent: 'proposal' as const,
    selectedClinicIk: null,
    currentVersion: 1,
    latestHash: 'h-1',
    createdAt: new Date(),
    updatedAt: new Date(),
    documentCount: 1,
    storedBytes: 2_000,
  };
  const document = documentBundle({ requestIdentifier: identifier }) as unknown as Record<string, unknown>;
  const sendAgain = async (hashOfStored: (key: FingerprintKey) => string) => {
    const key = await (await DataKeyring.load({ keks: kekSet(newKek('kek-1')), store: new MemoryKeyStore() })).keyring.fingerprintKey();
    const sut = new RequestBatch(
      { requests: [stored], tasks: [], documents: [{ requestId: stored.id, hash: hashOfStored(key) }] },
      { clinics, systems: fhirSystems(DEFAULT_PROFILE_BASE), now: new Date() },
    );
    return sut.apply({
      kind: 'document',
      meta: meta('m-9'),
      submitter: referrer,
      bundle: document,
      requestIdentifier: identifier,
      fingerprint: bundleFingerprint(key, document),
    }).outcome;
  };

  it('is recognised by its fingerprint', async () => {
    expect(await sendAgain((key) => bundleFingerprint(key, document).value)).toBe('unchanged');
  });

  it('is stored when only another document is', async () => {
    expect(await sendAgain((key) => bundleFingerprint(key, { resourceType: 'Bundle', id: 'another' }).value)).toBe('accepted');
  });
});
