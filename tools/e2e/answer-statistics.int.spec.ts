// The answer statistics through the stack (docs/api.md, "Answer statistics"): four clinics answer
// five requests each through the clinic API; the hospital reads every clinic's figures, each clinic
// only its own beside its peers' median, and neither reads the other's endpoint. The whole stack
// in-process (tools/e2e/stack-harness.ts); every answer is checked against the OpenAPI document.
import type { AnswerStatisticsList, OwnAnswerStatistics } from '@bedrequest/contracts';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

const CLINICS = ['510000501', '510000502', '510000503', '510000504'] as const;
/** Each clinic's answer to the five requests: the first clinic accepts all, the second none, the others some. */
const ANSWERS: Record<(typeof CLINICS)[number], ('accepted' | 'declined' | 'query')[]> = {
  '510000501': ['accepted', 'accepted', 'accepted', 'accepted', 'accepted'],
  '510000502': ['declined', 'declined', 'declined', 'declined', 'declined'],
  '510000503': ['accepted', 'query', 'declined', 'query', 'accepted'],
  '510000504': ['query', 'query', 'query', 'accepted', 'declined'],
};

describe('answer statistics for the hospital and for each clinic', () => {
  let stack: E2eStack;
  let referrer: string;
  const clinic: Record<string, string> = {};

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    for (const [i, ik] of CLINICS.entries()) {
      await stack.registerClinic(ik, `Rehaklinik ${i + 1}`, ['2300']);
      await stack.createClinicUser(`clinic-${i + 1}`, ik);
      clinic[ik] = await stack.login(`clinic-${i + 1}`);
    }
    referrer = await stack.login('hospital');

    for (let n = 0; n < 5; n++) {
      const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
      const body = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [...CLINICS] });
      expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body })).status).toBe(202);
      for (const ik of CLINICS) {
        const token = clinic[ik] as string;
        const task = await waitFor(
          async () =>
            (await stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token })).body
              .entry?.[0]?.resource,
          { what: `the Task of ${ik}` },
        );
        const answer = await stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, { token, body: { businessStatus: ANSWERS[ik][n] } });
        expect(answer.status).toBe(200);
      }
    }
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("gives the hospital every clinic's figures of its first answers", async () => {
    const { status, body } = await stack.api<AnswerStatisticsList>('GET', '/api/v1/kliniken/answer-statistics?department=2300', { token: referrer });
    expect(status).toBe(200);
    expect(body).toMatchObject({ windowDays: 90, minimumAnswers: 5 });
    expect(body.items.map((item) => [item.clinicIk, item.departmentCode, item.answers, item.acceptanceShare])).toEqual([
      ['510000501', '2300', 5, 1],
      ['510000502', '2300', 5, 0],
      ['510000503', '2300', 5, 0.4],
      ['510000504', '2300', 5, 0.2],
    ]);
    for (const item of body.items) expect(item.p90Seconds).toBeGreaterThanOrEqual(item.medianSeconds ?? Infinity);
  });

  it("gives a clinic its own figures beside its three peers' median, and never another clinic's", async () => {
    for (const ik of CLINICS) {
      const { status, body } = await stack.api<OwnAnswerStatistics>('GET', '/api/v1/clinic/answer-statistics', { token: clinic[ik] as string });
      expect(status).toBe(200);
      expect(body.items).toEqual([
        {
          clinicIk: ik,
          departmentCode: '2300',
          own: expect.objectContaining({ answers: 5 }),
          peers: expect.objectContaining({ clinics: 3, medianSeconds: expect.any(Number) }),
        },
      ]);
      const text = JSON.stringify(body);
      for (const other of CLINICS.filter((peer) => peer !== ik)) expect(text).not.toContain(other);
    }
  });

  it("refuses every clinic's figures to a clinic, and a clinic's own view to the hospital", async () => {
    const asClinic = await stack.api('GET', '/api/v1/kliniken/answer-statistics', { token: clinic[CLINICS[0]] as string });
    expect(asClinic.status).toBe(403);
    expect(JSON.stringify(asClinic.body)).not.toContain(CLINICS[1]);
    expect((await stack.api('GET', '/api/v1/clinic/answer-statistics', { token: referrer })).status).toBe(403);
  });
});
