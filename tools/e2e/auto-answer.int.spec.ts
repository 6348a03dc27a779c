// A clinic switches its automatic answers itself, through the gateway's capacity API (docs/api.md,
// "Bed counts"), instead of asking the operator for `npm run admin -- clinic auto-answer`: the
// whole stack in-process (tools/e2e/stack-harness.ts), driven like a referrer and a clinic would.
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { clinicDay } from './clinic-day';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface FhirTask {
  id: string;
  status: string;
  owner: { identifier: { value: string } };
  businessStatus?: { coding: { code: string }[] };
  note?: { text: string }[];
}

const CLINIC = '510000201';
const OTHER_CLINIC = '510000202';
/** A day to come: counts are published for today or later (docs/api.md, "Bed counts"). */
const DATE = clinicDay(30);
const AUTO_ANSWER = '/api/v1/clinic/capacity/auto-answer';

describe("a clinic's automatic answers, switched through the gateway", () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC, 'Rehazentrum Am See', ['2300']);
    await stack.registerClinic(OTHER_CLINIC, 'Klinik Talblick', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('am-see', CLINIC);
    referrer = await stack.login('hospital');
    clinic = await stack.login('am-see');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const tasksOf = async (identifier: string) =>
    (
      await stack.api<{ entry?: { resource: FhirTask }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer })
    ).body.entry?.map((entry) => entry.resource) ?? [];

  /**
   * Sends a request for orthopaedics on DATE to the clinic; answers its Task and what routing did
   * with it, from the clinic's notification log (`forwarded`: left to the clinic; `accepted-bed-held`:
   * answered from the bed counts).
   */
  const sendRequest = async (): Promise<{ identifier: string; task: FhirTask; outcome: string }> => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const sent = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate: DATE }),
    });
    expect(sent.status).toBe(202);
    const task = await waitFor(async () => (await tasksOf(identifier))[0], { what: 'the Task' });
    const line = await waitFor(
      async () => (await stack.admin('clinic', 'notifications', '--ik', CLINIC)).split('\n').find((entry) => entry.includes(`task ${task.id} `)),
      {
        what: "routing's handling of the Task",
      },
    );
    return { identifier, task, outcome: line.split(/\s+/)[5] ?? '' };
  };
  const businessStatusOf = async (identifier: string) => (await tasksOf(identifier))[0]?.businessStatus?.coding[0]?.code;

  it('is off until the clinic switches it on, then answers from the bed counts, and off again leaves requests to the clinic', async () => {
    expect(await stack.api('GET', AUTO_ANSWER, { token: clinic })).toMatchObject({ status: 200, body: { enabled: false } });
    expect((await stack.api('PUT', '/api/v1/clinic/capacity', { token: clinic, body: { department: '2300', date: DATE, freeBeds: 5 } })).status).toBe(200);

    const before = await sendRequest();
    expect(before.outcome).toBe('forwarded');
    expect(await businessStatusOf(before.identifier)).toBeUndefined();

    const switchedOn = await stack.api('PUT', AUTO_ANSWER, { token: clinic, body: { enabled: true } });
    expect([switchedOn.status, switchedOn.body]).toEqual([200, { enabled: true }]);
    expect(await stack.api('GET', AUTO_ANSWER, { token: clinic })).toMatchObject({ status: 200, body: { enabled: true } });
    // The operator's view of the registry is the same one.
    expect(await stack.admin('clinic', 'list')).toMatch(new RegExp(`${CLINIC} .*automatic answers`));

    const answered = await sendRequest();
    expect(answered.outcome).toBe('accepted-bed-held');
    expect(await waitFor(() => businessStatusOf(answered.identifier), { what: 'the automatic answer on the Task' })).toBe('accepted');

    const switchedOff = await stack.api('PUT', AUTO_ANSWER, { token: clinic, body: { enabled: false } });
    expect([switchedOff.status, switchedOff.body]).toEqual([200, { enabled: false }]);
    const after = await sendRequest();
    expect(after.outcome).toBe('forwarded');
    expect(await businessStatusOf(after.identifier)).toBeUndefined();
  });

  it('refuses a body that is not exactly {enabled: true|false} with 400, and changes nothing', async () => {
    for (const body of [{ enabled: 'true' }, { enabled: true, ik: OTHER_CLINIC }, {}]) {
      const response = await stack.api<{ error: string }>('PUT', AUTO_ANSWER, { token: clinic, body });
      expect([response.status, response.body.error]).toEqual([400, 'invalid_request']);
    }
    expect((await stack.api('GET', AUTO_ANSWER, { token: clinic })).body).toEqual({ enabled: false });
  });

  it("takes only a clinic's token, and switches only that clinic's answers", async () => {
    expect((await stack.api('PUT', AUTO_ANSWER, { body: { enabled: true } })).status).toBe(401);
    expect((await stack.api('PUT', AUTO_ANSWER, { token: referrer, body: { enabled: true } })).status).toBe(403);
    expect((await stack.api('GET', AUTO_ANSWER, { token: referrer })).status).toBe(403);
    expect(await stack.admin('clinic', 'list')).not.toMatch(new RegExp(`${OTHER_CLINIC} .*automatic answers`));
  });
});
