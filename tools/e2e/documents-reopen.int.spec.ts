// Documents the referrer sends after a clinic answered "more-data-required" (docs/decisions.md,
// "Requests"): they reopen that clinic's Task for an answer, marked as documents supplied, and move
// `lastModified` of every Task of the request that receives them, so a poller with `since` sees
// them. The whole stack in-process, every answer checked against the OpenAPI document (api-client.ts).
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface FhirTask {
  id: string;
  status: string;
  lastModified: string;
  owner: { identifier: { value: string } };
  businessStatus?: { coding: { code: string }[] };
}

interface ListItem {
  id: string;
  status: string;
  businessStatus?: string;
  lastModified: string;
  documentsSuppliedAt?: string;
}

const WAITING = '510000401';
const ACCEPTING = '510000402';

describe('documents after "more-data-required"', () => {
  let stack: E2eStack;
  let referrer: string;
  let waiting: string;
  let accepting: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(WAITING, 'Rehazentrum Am Bach', ['2300']);
    await stack.registerClinic(ACCEPTING, 'Rehaklinik Am Berg', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('am-bach', WAITING);
    await stack.createClinicUser('am-berg', ACCEPTING);
    referrer = await stack.login('hospital');
    waiting = await stack.login('am-bach');
    accepting = await stack.login('am-berg');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const taskOf = async (identifier: string, token: string): Promise<FhirTask> =>
    waitFor(
      async () =>
        (await stack.api<{ entry?: { resource: FhirTask }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token })).body
          .entry?.[0]?.resource,
      { what: 'the Task' },
    );
  const read = async (taskId: string, token: string) => (await stack.api<FhirTask>('GET', `/api/v2/fhir/Task/${taskId}`, { token })).body;
  const answer = async (taskId: string, token: string, body: { businessStatus: string; note?: string }) => {
    const answered = await stack.api<FhirTask>('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token, body });
    expect(answered.status).toBe(200);
    return answered.body;
  };
  const listed = async (token: string, since: string) => {
    const list = await stack.api<{ items: ListItem[] }>('GET', `/api/v1/clinic/tasks?since=${encodeURIComponent(since)}`, { token });
    expect(list.status).toBe(200);
    return list.body.items;
  };

  it('reopens the Task of the clinic that asked for more data, marked, and moves lastModified for every clinic that receives them', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const sent = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [WAITING, ACCEPTING], occurrenceDate: '2027-02-01' }),
    });
    expect(sent.status).toBe(202);
    const asked = await taskOf(identifier, waiting);
    const other = await taskOf(identifier, accepting);

    const onHold = await answer(asked.id, waiting, { businessStatus: 'more-data-required', note: 'Bitte den Entlassbrief senden' });
    expect(onHold.status).toBe('on-hold');
    const accepted = await answer(other.id, accepting, { businessStatus: 'accepted' });
    const before = new Date(Math.max(Date.parse(onHold.lastModified), Date.parse(accepted.lastModified)) + 1).toISOString();
    expect(await listed(waiting, before)).toEqual([]);

    const documents = await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: documentBundle({ requestIdentifier: identifier }) });
    expect(documents.status).toBe(202);

    // The clinic that asked answers again: its Task is requested, with its last answer kept until the new one.
    const reopened = await waitFor(
      async () => {
        const task = await read(asked.id, waiting);
        return task.status === 'requested' ? task : undefined;
      },
      { what: 'the reopened Task' },
    );
    expect(reopened.businessStatus?.coding[0]?.code).toBe('more-data-required');
    expect(Date.parse(reopened.lastModified)).toBeGreaterThan(Date.parse(onHold.lastModified));
    // The referrer reads the same state.
    expect((await read(asked.id, referrer)).status).toBe('requested');

    // A poller with `since` finds it, marked as documents supplied.
    const [item] = await listed(waiting, before);
    expect(item).toMatchObject({ id: asked.id, status: 'requested', businessStatus: 'more-data-required', lastModified: reopened.lastModified });
    expect(item?.documentsSuppliedAt).toBe(reopened.lastModified);

    // The clinic that accepted keeps its answer, but sees the change.
    const stillAccepted = await read(other.id, accepting);
    expect(stillAccepted.status).toBe('accepted');
    expect(Date.parse(stillAccepted.lastModified)).toBeGreaterThan(Date.parse(accepted.lastModified));
    const [otherItem] = await listed(accepting, before);
    expect(otherItem).toMatchObject({ id: other.id, status: 'accepted', lastModified: stillAccepted.lastModified });
    expect(otherItem?.documentsSuppliedAt).toBeUndefined();

    // The next answer ends the mark.
    const answered = await answer(asked.id, waiting, { businessStatus: 'accepted' });
    expect(answered.status).toBe('accepted');
    const [afterAnswer] = await listed(waiting, answered.lastModified);
    expect(afterAnswer?.documentsSuppliedAt).toBeUndefined();
  });
});
