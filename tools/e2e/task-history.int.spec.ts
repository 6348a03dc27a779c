// A Task's history for its clinic (docs/api.md, "Clinic API": GET /api/v1/clinic/tasks/{taskId}/history):
// one entry per answer with its time, code, note and the person who gave it, and one per delivery of
// documents, newest first, so that a note stands under the answer it was given with. The whole
// stack in-process, every answer checked against the OpenAPI document (api-client.ts).
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface HistoryEntry {
  kind: string;
  at: string;
  businessStatus?: string;
  note?: string;
  author?: { type: string; user?: string; display?: string; ik?: string };
  count?: number;
  kinds?: string[];
  reopened?: boolean;
  status?: string;
  version?: number;
}

interface History {
  total: number;
  items: HistoryEntry[];
  next?: string;
}

const CLINIC = '510000501';
const OTHER = '510000502';

describe("a Task's history", () => {
  let stack: E2eStack;
  let referrer: string;
  let anna: string;
  let bernd: string;
  let annaId: string;
  let berndId: string;
  let other: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC, 'Rehaklinik Am Waldsee', ['2300']);
    await stack.registerClinic(OTHER, 'Rehazentrum Am Hang', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    const team = await stack.createParty('clinic', 'Rehaklinik Am Waldsee', [CLINIC]);
    annaId = await stack.createPerson(team, 'anna.aufnahme', 'Anna Aufnahme');
    berndId = await stack.createPerson(team, 'bernd.belegung', 'Bernd Belegung');
    await stack.createClinicUser('am-hang', OTHER);
    referrer = await stack.login('hospital');
    anna = await stack.login('anna.aufnahme');
    bernd = await stack.login('bernd.belegung');
    other = await stack.login('am-hang');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const history = async (taskId: string, token: string, query = '') => stack.api<History>('GET', `/api/v1/clinic/tasks/${taskId}/history${query}`, { token });
  const answer = async (taskId: string, token: string, body: { businessStatus: string; note?: string }) => {
    const answered = await stack.api<{ lastModified: string }>('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token, body });
    expect(answered.status).toBe(200);
    return answered.body;
  };

  it('has one entry per answer, each with its code, its note and who gave it, and one per delivery of documents', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    expect(
      (
        await stack.api('POST', '/api/v2/fhir/Bundle', {
          token: referrer,
          body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate: '2027-02-01' }),
        })
      ).status,
    ).toBe(202);
    const task = await waitFor(
      async () =>
        (await stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: anna }))
          .body.entry?.[0]?.resource,
      { what: 'the Task' },
    );

    const accepted = await answer(task.id, anna, { businessStatus: 'accepted' });
    const query = await answer(task.id, anna, { businessStatus: 'query', note: 'Ist die Patientin mobil?' });
    const declined = await answer(task.id, bernd, { businessStatus: 'declined', note: 'Kein Bett mehr frei' });

    const answers = await history(task.id, anna);
    expect(answers.status).toBe(200);
    expect(answers.headers.get('cache-control')).toBe('no-store');
    const answerEntries = answers.body.items.filter((entry) => entry.kind === 'answer');
    expect(answerEntries).toEqual([
      {
        kind: 'answer',
        at: declined.lastModified,
        businessStatus: 'declined',
        note: 'Kein Bett mehr frei',
        author: { type: 'Practitioner', user: berndId, display: 'Bernd Belegung' },
      },
      {
        kind: 'answer',
        at: query.lastModified,
        businessStatus: 'query',
        note: 'Ist die Patientin mobil?',
        author: { type: 'Practitioner', user: annaId, display: 'Anna Aufnahme' },
      },
      { kind: 'answer', at: accepted.lastModified, businessStatus: 'accepted', author: { type: 'Practitioner', user: annaId, display: 'Anna Aufnahme' } },
    ]);
    // The request's first version came before every answer.
    expect(answers.body.items.at(-1)).toMatchObject({ kind: 'request', status: 'requested', version: 1 });
    expect(answers.body.total).toBe(answers.body.items.length);

    const documents = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: documentBundle({
        requestIdentifier: identifier,
        documents: [
          { contentType: 'text/plain', text: 'Entlassbrief', title: 'Arztbrief' },
          { contentType: 'text/plain', text: 'Befund', title: 'Röntgenbefund' },
        ],
      }),
    });
    expect(documents.status).toBe(202);
    const withDocuments = await waitFor(
      async () => {
        const read = (await history(task.id, bernd)).body;
        return read.items[0]?.kind === 'documents' ? read : undefined;
      },
      { what: 'the documents in the history' },
    );
    expect(withDocuments.items[0]).toMatchObject({ kind: 'documents', count: 2, reopened: false });
    expect(Date.parse(withDocuments.items[0]!.at)).toBeGreaterThan(Date.parse(declined.lastModified));
    expect(withDocuments.items.slice(1, 4)).toEqual(answerEntries);

    // Pages like the versions and documents.
    const first = await history(task.id, anna, '?_count=2');
    expect(first.body.items).toEqual(withDocuments.items.slice(0, 2));
    expect(first.body.next).toBe('?_count=2&_offset=2');
    const second = await history(task.id, anna, `${first.body.next}`);
    expect(second.body.items).toEqual(withDocuments.items.slice(2, 4));
    expect((await history(task.id, anna, '?_count=0')).status).toBe(400);
    expect((await history(task.id, anna, '?sort=at')).status).toBe(400);

    // Another clinic's Task, or no Task: 404.
    expect((await history(task.id, other)).status).toBe(404);
    expect((await history(crypto.randomUUID(), anna)).status).toBe(404);
    // A referrer token is not the clinic API's.
    expect((await history(task.id, referrer)).status).toBe(403);
  });

  it('answers 410 once the request was erased', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate: '2027-02-02' }),
    });
    const task = await waitFor(
      async () =>
        (await stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: anna }))
          .body.entry?.[0]?.resource,
      { what: 'the Task' },
    );
    await answer(task.id, anna, { businessStatus: 'query', note: 'Rückfrage' });
    const erased = await stack.api('DELETE', `/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(identifier)}`, { token: referrer });
    expect(erased.status).toBeLessThan(300);
    const gone = await history(task.id, anna);
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({ error: 'gone' });
  });
});
