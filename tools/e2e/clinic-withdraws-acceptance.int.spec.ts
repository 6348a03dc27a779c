// What a selected clinic may do (docs/decisions.md, "Clinics answer"): its answers are recorded but
// keep the selection; withdrawing its acceptance with a reason lifts it. Through the whole stack
// in-process (gateway, intake, routing, the notifier), every answer checked against the OpenAPI
// document (api-client.ts): the request is a proposal again, the Task rejected with the reason, the
// referrer gets the answer as an event, and the bed the selection reserved is free again.
import { randomUUID } from 'node:crypto';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK, type AdmissionRequestFixtureOptions } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface FhirTask {
  id: string;
  status: string;
  lastModified: string;
  owner: { identifier: { value: string } };
  businessStatus?: { coding: { code: string }[] };
  note?: { text: string; authorReference?: { display?: string } }[];
}
interface BedCountView {
  date: string;
  freeBeds: number;
  held: number;
  reserved: number;
  available: number;
}
type Refusal = { error?: string; message?: string };

const SELECTED = '510000301';
const OTHER = '510000302';
const REASON = 'Das zugesagte Bett ist seit heute Nacht durch einen Notfall belegt; Aufnahme frühestens in drei Wochen.';
/** An admission date a month ahead: the count must be for a day still to come. */
const DATE = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

describe('the selected clinic withdraws its acceptance', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;
  let otherClinic: string;
  let subscriptionId: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(SELECTED, 'Rehaklinik Lindenhof', ['2300']);
    await stack.registerClinic(OTHER, 'Reha-Zentrum Am Hang', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('lindenhof', SELECTED);
    await stack.createClinicUser('am-hang', OTHER);
    referrer = await stack.login('hospital');
    clinic = await stack.login('lindenhof');
    otherClinic = await stack.login('am-hang');
    const subscription = await stack.api<{ id: string; secret: string }>('POST', '/api/v1/subscriptions', {
      token: referrer,
      body: { eventType: 'AdmissionResponse', callbackUrl: await receiver.start() },
    });
    expect(subscription.status).toBe(201);
    subscriptionId = subscription.body.id;
    receiver.secret = subscription.body.secret;
  }, 120_000);

  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  const post = (options: AdmissionRequestFixtureOptions) =>
    stack.api<{ issue?: { diagnostics?: string }[] }>('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle(options) });
  const tasksOf = async (identifier: string, token = referrer) =>
    (await stack.api<{ entry?: { resource: FhirTask }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token })).body.entry?.map(
      (entry) => entry.resource,
    ) ?? [];
  const taskOf = async (identifier: string, ik: string, token = referrer) =>
    (await tasksOf(identifier, token)).find((task) => task.owner.identifier.value === ik);
  const read = async (taskId: string, token = clinic) => {
    const answer = await stack.api<FhirTask>('GET', `/api/v2/fhir/Task/${taskId}`, { token });
    expect(answer.status).toBe(200);
    return { task: answer.body, etag: answer.headers.get('etag') ?? '' };
  };
  const withdraw = (taskId: string, options: { token?: string; ifMatch?: string; body?: unknown } = {}) =>
    stack.api<FhirTask & Refusal>('POST', `/api/v1/clinic/tasks/${taskId}/withdraw-acceptance`, {
      token: options.token ?? clinic,
      body: options.body ?? { reason: REASON },
      ...(options.ifMatch === undefined ? {} : { headers: { 'if-match': options.ifMatch } }),
    });
  const bedCount = async () =>
    (await stack.api<{ items: BedCountView[] }>('GET', `/api/v1/clinic/capacity?from=${DATE}&to=${DATE}`, { token: clinic })).body.items[0];
  const events = async () =>
    (await stack.api<{ items: { id: string; data: FhirTask }[] }>('GET', `/api/v1/subscriptions/${subscriptionId}/events?since=0`, { token: referrer })).body
      .items;
  /** A request to both clinics, the first of which accepted by hand; the Tasks' ids. */
  const acceptedRequest = async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    expect((await post({ requestIdentifier: identifier, performerIks: [SELECTED, OTHER], occurrenceDate: DATE })).status).toBe(202);
    const [selected, other] = await waitFor(
      async () => {
        const [a, b] = [await taskOf(identifier, SELECTED), await taskOf(identifier, OTHER)];
        return a && b && [a, b];
      },
      { what: 'the Tasks' },
    );
    const accepted = await stack.api('POST', `/api/v1/clinic/tasks/${selected.id}/answer`, {
      token: clinic,
      body: { businessStatus: 'accepted', note: 'Zusage' },
    });
    expect(accepted.status).toBe(200);
    return { identifier, selected: selected.id, other: other.id };
  };

  it('lifts the selection, rejects the Task with the reason, tells the referrer and frees the reserved bed; only once, only the selected clinic, only on the Task as read', async () => {
    expect((await stack.api('PUT', '/api/v1/clinic/capacity', { token: clinic, body: { department: '2300', date: DATE, freeBeds: 2 } })).status).toBe(200);
    const { identifier, selected, other } = await acceptedRequest();
    // A clinic that accepted but is not selected has no acceptance to withdraw.
    const unselected = await withdraw(selected);
    expect([unselected.status, unselected.body.error]).toEqual([409, 'conflict']);

    const selection = await post({
      requestIdentifier: identifier,
      intent: 'order',
      orderDetail: 'selected-provider',
      performerIks: [SELECTED],
      occurrenceDate: DATE,
    });
    expect(selection.status).toBe(202);
    await waitFor(async () => (await read(selected)).task.status === 'in-progress' || undefined, { what: 'the selection' });
    expect(await waitFor(async () => ((await bedCount())?.reserved === 1 ? bedCount() : undefined), { what: 'the reserved bed' })).toMatchObject({
      freeBeds: 2,
      reserved: 1,
      available: 1,
    });

    // The other clinic's Task was cancelled by the selection: nothing to withdraw.
    const cancelled = await withdraw(other, { token: otherClinic });
    expect([cancelled.status, cancelled.body.error]).toEqual([409, 'conflict']);
    // The selected clinic's answer, even "Absage", is recorded but keeps the selection, as before,
    // and with it the bed (once the referrer has the answer, routing has had it too).
    const before = await read(selected);
    const declined = await stack.api<FhirTask>('POST', `/api/v1/clinic/tasks/${selected}/answer`, {
      token: clinic,
      body: { businessStatus: 'declined', note: 'Absage' },
    });
    expect([declined.status, declined.body.status, declined.body.businessStatus?.coding[0]?.code]).toEqual([200, 'in-progress', 'declined']);
    await waitFor(async () => (await events()).find((item) => item.data.id === selected && item.data.businessStatus?.coding[0]?.code === 'declined'), {
      what: 'the event of the answer',
    });
    expect(await bedCount()).toMatchObject({ reserved: 1 });
    // A withdrawal on the Task as it was before that answer is refused, and stores nothing.
    const stale = await withdraw(selected, { ifMatch: before.etag });
    expect([stale.status, stale.body.error]).toEqual([412, 'precondition_failed']);
    const current = await read(selected);
    expect(current.task.status).toBe('in-progress');
    expect(stale.headers.get('etag')).toBe(current.etag);
    // Malformed bodies are refused before anything is sent.
    expect((await withdraw(selected, { body: { reason: '' } })).status).toBe(400);
    expect((await withdraw(selected, { body: { reason: 'x'.repeat(4001) } })).status).toBe(400);

    const withdrawn = await withdraw(selected, { ifMatch: current.etag });

    expect(withdrawn.status).toBe(200);
    expect(withdrawn.headers.get('etag')).not.toBe(current.etag);
    expect(withdrawn.body).toMatchObject({ status: 'rejected', businessStatus: { coding: [{ code: 'declined' }] } });
    expect(withdrawn.body.lastModified > current.task.lastModified).toBe(true);
    // The reason is the Task's newest note, and the clinic reads who wrote it.
    expect(withdrawn.body.note?.at(-1)).toMatchObject({ text: REASON, authorReference: expect.objectContaining({ type: 'Practitioner' }) });
    // The referrer reads the Task rejected with the reason (without the clinic's staff) and gets it as an answer of its own.
    const referrersTask = await read(selected, referrer);
    expect(referrersTask.task).toMatchObject({ status: 'rejected', businessStatus: { coding: [{ code: 'declined' }] } });
    expect(referrersTask.task.note?.at(-1)).toEqual({ text: REASON, time: expect.any(String) });
    const event = await waitFor(async () => (await events()).find((item) => item.data.id === selected && item.data.status === 'rejected'), {
      what: 'the AdmissionResponse event of the withdrawal',
    });
    expect(event.data.note?.at(-1)?.text).toBe(REASON);
    await waitFor(() => receiver.accepted().find((webhook) => (webhook.body.data as FhirTask).status === 'rejected'), { what: 'the webhook' });
    // Routing gives the bed back.
    expect(await waitFor(async () => ((await bedCount())?.reserved === 0 ? bedCount() : undefined), { what: 'the released bed' })).toMatchObject({
      freeBeds: 2,
      held: 0,
      reserved: 0,
      available: 2,
    });

    // Once is all: the clinic is no longer selected.
    const again = await withdraw(selected);
    expect([again.status, again.body.error]).toEqual([409, 'conflict']);
    // The request is a proposal again: no selection left for the referrer to withdraw, and a bundle
    // naming the other clinic again (refused while a clinic is selected) reopens its Task.
    const referrersWithdrawal = await post({
      requestIdentifier: identifier,
      intent: 'order',
      orderDetail: 'selected-provider-cancelled',
      performerIks: [SELECTED],
      patient: 'complete',
      occurrenceDate: DATE,
    });
    expect(referrersWithdrawal.status).toBe(409);
    expect((await post({ requestIdentifier: identifier, performerIks: [OTHER], occurrenceDate: DATE })).status).toBe(202);
    await waitFor(async () => (await taskOf(identifier, OTHER))?.status === 'requested' || undefined, { what: "the other clinic's reopened Task" });
  });

  it("answers 404 for another clinic's Task", async () => {
    const { selected } = await acceptedRequest();

    const response = await withdraw(selected, { token: otherClinic });

    expect([response.status, response.body.error]).toEqual([404, 'not_found']);
  });
});
