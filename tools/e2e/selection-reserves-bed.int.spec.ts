// A selection reserves a bed of the date's published count however the clinic accepted
// (docs/parties.md, "Automatic answers from bed counts"): here the clinic says "Zusage" by hand
// through the clinic API, the referrer selects it, and the clinic reads its counts through the
// gateway's capacity API. The whole stack in-process (tools/e2e/stack-harness.ts).
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK, type AdmissionRequestFixtureOptions } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { clinicDay } from './clinic-day';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface FhirTask {
  id: string;
  status: string;
}
interface BedCountView {
  date: string;
  freeBeds: number;
  held: number;
  reserved: number;
  available: number;
}

const CLINIC = '510000301';
/** A day to come: counts are published for today or later (docs/api.md, "Bed counts"). */
const DATE = clinicDay(30);

describe('a clinic that accepted by hand and was selected', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC, 'Rehaklinik Lindenhof', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('lindenhof', CLINIC);
    referrer = await stack.login('hospital');
    clinic = await stack.login('lindenhof');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const post = async (options: AdmissionRequestFixtureOptions) =>
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle(options) })).status).toBe(202);
  const taskOf = async (identifier: string) =>
    (await stack.api<{ entry?: { resource: FhirTask }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer })).body
      .entry?.[0]?.resource;
  const bedCount = async () =>
    (await stack.api<{ items: BedCountView[] }>('GET', `/api/v1/clinic/capacity?from=${DATE}&to=${DATE}`, { token: clinic })).body.items[0];
  /** Waits until routing logged its handling of the Task's dispatch (`change/action`), as the operator reads it. */
  const routed = (taskId: string, dispatch: string) =>
    waitFor(
      async () =>
        (await stack.admin('clinic', 'notifications', '--ik', CLINIC))
          .split('\n')
          .find((line) => line.includes(`task ${taskId} `) && line.includes(` ${dispatch} `)),
      { what: `routing's handling of ${dispatch}` },
    );

  it('reserves a bed of the count on selection, and gives it back when the selection is withdrawn', async () => {
    expect((await stack.api('PUT', '/api/v1/clinic/capacity', { token: clinic, body: { department: '2300', date: DATE, freeBeds: 2 } })).status).toBe(200);
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    await post({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate: DATE });
    const task = await waitFor(() => taskOf(identifier), { what: 'the Task' });
    const answer = await stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, { token: clinic, body: { businessStatus: 'accepted', note: 'Zusage' } });
    expect(answer.status).toBe(200);
    // A clinic's own acceptance books nothing until the referrer selects it.
    expect(await bedCount()).toMatchObject({ freeBeds: 2, held: 0, reserved: 0, available: 2 });

    await post({ requestIdentifier: identifier, intent: 'order', orderDetail: 'selected-provider', performerIks: [CLINIC], occurrenceDate: DATE });
    const selected = await routed(task.id, 'selected/selected');
    expect(await bedCount()).toMatchObject({ freeBeds: 2, held: 0, reserved: 1, available: 1 });
    expect(selected).toContain('selected-bed-reserved');

    await post({
      requestIdentifier: identifier,
      intent: 'order',
      orderDetail: 'selected-provider-cancelled',
      performerIks: [CLINIC],
      patient: 'complete',
      occurrenceDate: DATE,
    });
    expect(await routed(task.id, 'selection-withdrawn/cancelled')).toContain('cancelled-bed-released');
    expect(await bedCount()).toMatchObject({ freeBeds: 2, held: 0, reserved: 0, available: 2 });
  });
});
