// A clinic answers the Task as it read it (docs/api.md, "Clinic API"): the Task read answers its
// ETag, the answer takes it as If-Match, and one that names a tag the Task no longer has (a
// colleague answered, the referrer sent a new version) is 412 and stores nothing. The whole stack
// in-process, every answer checked against the OpenAPI document (api-client.ts).
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface FhirTask {
  id: string;
  status: string;
  lastModified: string;
  businessStatus?: { coding: { code: string }[] };
  note?: { text: string }[];
}

const CLINIC = '510000301';
const WEAK_TAG = /^W\/"[^"]+"$/;

describe("a clinic's answer with If-Match", () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;
  let colleague: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC, 'Rehazentrum Am Hang', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('am-hang', CLINIC);
    await stack.createClinicUser('am-hang-2', CLINIC);
    referrer = await stack.login('hospital');
    clinic = await stack.login('am-hang');
    colleague = await stack.login('am-hang-2');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const send = async (identifier: string, occurrenceDate: string) => {
    const sent = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate }),
    });
    expect(sent.status).toBe(202);
  };
  /** A new request to the clinic; its Task's id. */
  const newTask = async (): Promise<string> => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    await send(identifier, '2027-01-11');
    const search = await waitFor(
      async () =>
        (await stack.api<{ entry?: { resource: FhirTask }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: clinic })).body
          .entry?.[0]?.resource,
      { what: 'the Task' },
    );
    return search.id;
  };
  const read = async (taskId: string) => {
    const answer = await stack.api<FhirTask>('GET', `/api/v2/fhir/Task/${taskId}`, { token: clinic });
    expect(answer.status).toBe(200);
    return { task: answer.body, etag: answer.headers.get('etag') ?? '' };
  };
  const answer = (taskId: string, body: { businessStatus: string; note?: string }, options: { token?: string; ifMatch?: string } = {}) =>
    stack.api<FhirTask & { error?: string; message?: string }>('POST', `/api/v1/clinic/tasks/${taskId}/answer`, {
      token: options.token ?? clinic,
      body,
      ...(options.ifMatch === undefined ? {} : { headers: { 'if-match': options.ifMatch } }),
    });

  it("refuses with 412 an answer on a tag a colleague's answer replaced, and stores nothing", async () => {
    const taskId = await newTask();
    const seen = await read(taskId);
    expect(seen.etag).toMatch(WEAK_TAG);

    const colleagues = await answer(taskId, { businessStatus: 'declined', note: 'Kein Bett frei' }, { token: colleague, ifMatch: seen.etag });
    expect(colleagues.status).toBe(200);
    expect(colleagues.headers.get('etag')).toMatch(WEAK_TAG);
    expect(colleagues.headers.get('etag')).not.toBe(seen.etag);

    const late = await answer(taskId, { businessStatus: 'accepted', note: 'Aufnahme möglich' }, { ifMatch: seen.etag });
    expect(late.status).toBe(412);
    expect(late.body).toMatchObject({ error: 'precondition_failed' });
    expect(late.headers.get('etag')).toBe(colleagues.headers.get('etag'));

    const after = await read(taskId);
    expect(after.task.businessStatus?.coding[0]?.code).toBe('declined');
    expect(after.task.note?.map((note) => note.text)).toEqual(['Kein Bett frei']);
    expect(after.etag).toBe(colleagues.headers.get('etag'));
  });

  it("takes an answer whose If-Match is the Task's tag, one tag of a list, or *", async () => {
    const taskId = await newTask();
    const seen = await read(taskId);

    const first = await answer(taskId, { businessStatus: 'query', note: 'Befund?' }, { ifMatch: `W/"1-0-none", ${seen.etag}` });
    expect(first.status).toBe(200);
    const second = await answer(taskId, { businessStatus: 'accepted' }, { ifMatch: first.headers.get('etag') ?? '' });
    expect(second.status).toBe(200);
    expect(second.body.businessStatus?.coding[0]?.code).toBe('accepted');
    expect((await answer(taskId, { businessStatus: 'accepted' }, { ifMatch: '*' })).status).toBe(200);
  });

  it('answers without If-Match as before: on whatever the Task is now', async () => {
    const taskId = await newTask();
    await read(taskId);
    expect((await answer(taskId, { businessStatus: 'declined', note: 'Kein Bett' }, { token: colleague })).status).toBe(200);

    const overwriting = await answer(taskId, { businessStatus: 'accepted' });
    expect(overwriting.status).toBe(200);
    expect(overwriting.body.businessStatus?.coding[0]?.code).toBe('accepted');
  });

  it('gives the Task a new tag when the referrer supplements the request, and refuses the answer on the old one', async () => {
    const taskId = await newTask();
    const seen = await read(taskId);
    const identifier = (await stack.api<{ basedOn: { identifier: { value: string } }[] }>('GET', `/api/v2/fhir/Task/${taskId}`, { token: clinic })).body
      .basedOn[0]!.identifier.value;

    await send(identifier, '2027-02-01');
    await waitFor(async () => (await read(taskId)).etag !== seen.etag, { what: "the supplement's new tag" });

    const stale = await answer(taskId, { businessStatus: 'accepted' }, { ifMatch: seen.etag });
    expect(stale.status).toBe(412);
    expect((await read(taskId)).task.businessStatus).toBeUndefined();
    const fresh = await answer(taskId, { businessStatus: 'accepted' }, { ifMatch: (await read(taskId)).etag });
    expect(fresh.status).toBe(200);
  });

  it('refuses a malformed If-Match with 400 and stores nothing', async () => {
    const taskId = await newTask();
    for (const ifMatch of ['1-0', 'W/1-0', '"a" "b"', `"${'x'.repeat(65)}"`, '*, "a"']) {
      const refused = await answer(taskId, { businessStatus: 'accepted' }, { ifMatch });
      expect([ifMatch, refused.status, refused.body.error]).toEqual([ifMatch, 400, 'invalid_request']);
    }
    expect((await read(taskId)).task.businessStatus).toBeUndefined();
  });

  it('answers 409 for a cancelled Task whatever its If-Match says, as without it', async () => {
    const taskId = await newTask();
    const seen = await read(taskId);
    const identifier = (await stack.api<{ basedOn: { identifier: { value: string } }[] }>('GET', `/api/v2/fhir/Task/${taskId}`, { token: clinic })).body
      .basedOn[0]!.identifier.value;
    const revoked = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate: '2027-01-11', status: 'revoked' });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: revoked })).status).toBe(202);
    await waitFor(async () => (await read(taskId)).task.status === 'cancelled', { what: 'the cancellation' });

    expect((await answer(taskId, { businessStatus: 'accepted' }, { ifMatch: seen.etag })).status).toBe(409);
  });
});
