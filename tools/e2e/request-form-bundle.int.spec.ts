// Bundles built from the request form (libs/fhir-model, request-form) go through the public API as an
// integrator's do: a proposal to two clinics, the same bundle again (a retry), then, once a clinic
// accepted, the selection of it built from the proposal read back with formOfBundle. The whole
// stack in-process, every answer checked against the OpenAPI document (api-client.ts).
import type { Bundle } from '@medplum/fhirtypes';
import { buildAdmissionRequestBundle, DEFAULT_PROFILE_BASE, formOfBundle, RequestForm, requestIdentifierFor } from '@bedrequest/fhir-model';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

const FHIR_BASE = 'https://akutklinik-mitte.example/fhir';
const REQUESTER = '260000701';
const CLINIC = '510000701';
const OTHER = '510000702';

interface TaskBundle {
  entry?: { resource: { id: string; status: string; owner?: { identifier?: { value?: string } } } }[];
}

describe('a request made with the request form', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC, 'Rehaklinik Am See', ['2300']);
    await stack.registerClinic(OTHER, 'Rehazentrum Am Hang', ['2300']);
    await stack.createReferrer('sozialdienst', [REQUESTER], FHIR_BASE);
    await stack.createClinicUser('am-see', CLINIC);
    referrer = await stack.login('sozialdienst');
    clinic = await stack.login('am-see');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const post = async (body: Bundle) => (await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body })).status;
  const tasks = async (identifier: string) =>
    (await stack.api<TaskBundle>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer })).body.entry ?? [];

  it('is accepted as a proposal, a retry of it, and the selection of the clinic that accepted', async () => {
    const requestIdentifier = requestIdentifierFor(FHIR_BASE);
    const proposal = RequestForm.parse({
      requestIdentifier,
      transmissionNumber: 'SD-2026-0001',
      stage: 'proposal',
      requester: { ik: REQUESTER, name: 'Akutklinik Mitte, Sozialdienst' },
      performers: [{ ik: CLINIC, deepLink: 'https://akutklinik-mitte.example/anfragen/1' }, { ik: OTHER }],
      patient: { gender: 'male', birthDate: '1948-07-02', postalCode: '10115', city: 'Berlin' },
      desiredAdmissionDate: '2036-01-12',
      serviceType: 'follow-up-rehabilitation',
      specialty: 'orthopedics',
      diagnoses: [{ code: 'M16.1', text: 'Primäre Koxarthrose' }],
      weightKg: 81,
      coverage: { payorIk: '109519005', payorName: 'AOK Nordost', kind: 'GKV' },
      stay: { admissionDate: '2026-11-30', status: 'in-house', caseNumber: 'F-2026-1' },
      notes: ['Hüft-TEP links am 01.12.'],
    });
    const options = { profileBase: DEFAULT_PROFILE_BASE, now: new Date() };
    const proposed = buildAdmissionRequestBundle(proposal, options);
    expect(await post(proposed)).toBe(202);
    expect(await post(proposed)).toBe(202);
    const clinicTask = await waitFor(async () => (await tasks(requestIdentifier)).find((task) => task.resource.owner?.identifier?.value === CLINIC), {
      what: "the clinic's Task",
    });
    expect((await tasks(requestIdentifier)).map((task) => task.resource.status)).toEqual(['requested', 'requested']);

    const answered = await stack.api('POST', `/api/v1/clinic/tasks/${clinicTask.resource.id}/answer`, { token: clinic, body: { businessStatus: 'accepted' } });
    expect(answered.status).toBe(200);

    const read = formOfBundle(proposed, { profileBase: DEFAULT_PROFILE_BASE });
    const selection = RequestForm.parse({
      ...read,
      transmissionNumber: 'SD-2026-0002',
      stage: 'selection',
      performers: read.performers.filter((performer) => performer.ik === CLINIC),
      patient: { ...read.patient, familyName: 'Mustermann', givenNames: ['Max'], streetLine: 'Invalidenstraße 117', phone: '+49 30 7654321' },
    });
    expect(await post(buildAdmissionRequestBundle(selection, options))).toBe(202);
    await waitFor(
      async () =>
        (await tasks(requestIdentifier)).find((task) => task.resource.id === clinicTask.resource.id)?.resource.status === 'in-progress' ? true : undefined,
      {
        what: 'the selected Task in progress',
      },
    );
  });
});
