// A hospital reads the free beds a clinic published, where the clinic shows them to referrers
// (docs/api.md, "Free beds for referrers"): one clinic switches it on, is selected by hand after its
// "Zusage" and shows its bed reserved; another, which did not switch it on, is never shown. The
// whole stack in-process (tools/e2e/stack-harness.ts); every answer is checked against the OpenAPI document.
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK, type AdmissionRequestFixtureOptions } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { clinicDay } from './clinic-day';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface FreeBedsList {
  date: string;
  items: { ik: string; department: string; published: number; held: number; reserved: number; free: number }[];
}

const SHOWN = '510000401';
const HIDDEN = '510000402';
/** A day to come: counts are published for today or later (docs/api.md, "Bed counts"). */
const DATE = clinicDay(20);

describe("the free beds of clinics that show them, read with a referrer's token", () => {
  let stack: E2eStack;
  let referrer: string;
  let shown: string;
  let hidden: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(SHOWN, 'Rehaklinik Sonnenhang', ['2300', '0300']);
    await stack.registerClinic(HIDDEN, 'Fachklinik Talblick', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('sonnenhang', SHOWN);
    await stack.createClinicUser('talblick', HIDDEN);
    referrer = await stack.login('hospital');
    shown = await stack.login('sonnenhang');
    hidden = await stack.login('talblick');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const publish = async (token: string, department: string, freeBeds: number) =>
    expect((await stack.api('PUT', '/api/v1/clinic/capacity', { token, body: { department, date: DATE, freeBeds } })).status).toBe(200);
  const visibility = (token: string, shownToReferrers?: boolean) =>
    shownToReferrers === undefined
      ? stack.api<{ shownToReferrers: boolean }>('GET', '/api/v1/clinic/capacity/visibility', { token })
      : stack.api<{ shownToReferrers: boolean }>('PUT', '/api/v1/clinic/capacity/visibility', { token, body: { shownToReferrers } });
  const freeBeds = (query: string, token = referrer) => stack.api<FreeBedsList>('GET', `/api/v1/kliniken/free-beds${query}`, { token });
  const post = async (options: AdmissionRequestFixtureOptions) =>
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle(options) })).status).toBe(202);
  const taskOf = async (identifier: string) =>
    (await stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer }))
      .body.entry?.[0]?.resource;

  it('shows nothing until a clinic switches it on: off by default', async () => {
    await publish(shown, '2300', 3);
    await publish(shown, '0300', 1);
    await publish(hidden, '2300', 5);

    expect(await visibility(shown)).toMatchObject({ status: 200, body: { shownToReferrers: false } });
    expect(await freeBeds(`?date=${DATE}`)).toMatchObject({ status: 200, body: { date: DATE, items: [] } });
  });

  it('shows the clinic that switched on with published, reserved and free after a selection reserved a bed, and never the other', async () => {
    expect(await visibility(shown, true)).toMatchObject({ status: 200, body: { shownToReferrers: true } });
    expect(await visibility(shown)).toMatchObject({ status: 200, body: { shownToReferrers: true } });

    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    await post({ requestIdentifier: identifier, performerIks: [SHOWN], occurrenceDate: DATE });
    const task = await waitFor(() => taskOf(identifier), { what: 'the Task' });
    expect((await stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, { token: shown, body: { businessStatus: 'accepted' } })).status).toBe(200);
    await post({ requestIdentifier: identifier, intent: 'order', orderDetail: 'selected-provider', performerIks: [SHOWN], occurrenceDate: DATE });

    const orthopedics = { ik: SHOWN, department: '2300', published: 3, held: 0, reserved: 1, free: 2 };
    await waitFor(async () => ((await freeBeds(`?date=${DATE}`)).body.items.some((item) => item.reserved === 1) ? true : undefined), {
      what: 'the reserved bed in the free beds',
    });
    expect(await freeBeds(`?date=${DATE}`)).toMatchObject({
      status: 200,
      body: { date: DATE, items: [{ ik: SHOWN, department: '0300', published: 1, held: 0, reserved: 0, free: 1 }, orthopedics] },
    });
    expect(await freeBeds(`?date=${DATE}&department=2300`)).toMatchObject({ status: 200, body: { date: DATE, items: [orthopedics] } });
    // The same figures as the clinic's own beds page.
    const own = await stack.api<{ items: { department: string; freeBeds: number; reserved: number; available: number }[] }>(
      'GET',
      `/api/v1/clinic/capacity?from=${DATE}&to=${DATE}`,
      { token: shown },
    );
    expect(own.body.items.find((item) => item.department === '2300')).toMatchObject({ freeBeds: 3, reserved: 1, available: 2 });
  });

  it('hides the clinic again once it switches off', async () => {
    expect(await visibility(shown, false)).toMatchObject({ status: 200, body: { shownToReferrers: false } });

    expect(await freeBeds(`?date=${DATE}`)).toMatchObject({ status: 200, body: { date: DATE, items: [] } });
  });

  it('refuses a day gone, a malformed date or department with 400 and a message saying why', async () => {
    const yesterday = clinicDay(-1);
    expect(await freeBeds(`?date=${yesterday}`)).toMatchObject({
      status: 400,
      body: {
        error: 'invalid_request',
        message: `date ${yesterday} is in the past: free beds are shown for today (${clinicDay(0)}, Europe/Berlin) or later days`,
      },
    });
    expect(await freeBeds('?date=2036-02-30')).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', message: 'date must be one calendar date YYYY-MM-DD, got "2036-02-30"' },
    });
    expect(await freeBeds('?date=7.12.2036')).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', message: 'date: must be one admission date YYYY-MM-DD' },
    });
    expect(await freeBeds('')).toMatchObject({ status: 400, body: { error: 'invalid_request', message: 'date: is required' } });
    expect(await freeBeds(`?date=${DATE}&department=23`)).toMatchObject({
      status: 400,
      body: { error: 'invalid_request', message: 'department: must be one department key of 4 digits, e.g. "2300"' },
    });
  });

  it("is the referrers': a clinic's token is refused, and a referrer's cannot switch a clinic's setting", async () => {
    expect((await freeBeds(`?date=${DATE}`, hidden)).status).toBe(403);
    expect((await visibility(referrer)).status).toBe(403);
    expect((await stack.api('PUT', '/api/v1/clinic/capacity/visibility', { token: hidden, body: { shownToReferrers: 'yes' } })).status).toBe(400);
    expect(await visibility(hidden)).toMatchObject({ status: 200, body: { shownToReferrers: false } });
  });
});
