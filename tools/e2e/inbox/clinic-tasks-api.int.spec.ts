import { randomUUID } from 'node:crypto';
import { waitFor } from '@bedrequest/testing';
import { admissionRequestBundle, documentBundle, type AdmissionRequestFixtureOptions } from '@bedrequest/fhir-model/testing';
import { startE2eStack, type E2eStack } from '../e2e-stack';

/**
 * `GET /api/v1/clinic/tasks`, `GET /api/v1/clinic/tasks/{id}/versions` and the request's documents
 * (a page at a time, and one by its position): what the clinic inbox lists and shows as history,
 * open to integrators alike.
 */
const FHIR_BASE = 'https://list-hospital.example/fhir';
const REFERRER_IK = '261400001';
const A = '514100001';
const B = '514100002';

interface Summary {
  id: string;
  status: string;
  businessStatus?: string;
  version: number;
  lastModified: string;
  request: Record<string, unknown>;
  patient: Record<string, unknown>;
  mainDiagnosis?: { code: string; display?: string };
}
interface Page<Item> {
  total: number;
  items: Item[];
  next?: string;
}
interface List {
  total: number;
  counts: Record<string, number>;
  items: Summary[];
}

describe('the clinic list and version API', () => {
  let stack: E2eStack;
  let referrer: string;
  const clinic: Record<string, string> = {};
  const suffix = randomUUID().slice(0, 8);

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(A, 'Klinik A', ['2300', '0300']);
    await stack.registerClinic(B, 'Klinik B', ['2300']);
    await stack.createReferrer(`list-referrer-${suffix}`, [REFERRER_IK], FHIR_BASE);
    await stack.createClinicUser(`list-a-${suffix}`, A);
    await stack.createClinicUser(`list-b-${suffix}`, B);
    referrer = await stack.login(`list-referrer-${suffix}`);
    clinic[A] = await stack.login(`list-a-${suffix}`);
    clinic[B] = await stack.login(`list-b-${suffix}`);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const send = async (identifier: string, options: AdmissionRequestFixtureOptions = {}) => {
    const answer = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: REFERRER_IK, performerIks: [A, B], requestIdentifier: identifier, ...options }),
    });
    expect(answer.status).toBe(202);
  };
  const list = (ik: string, query = '') => stack.api<List>('GET', `/api/v1/clinic/tasks${query}`, { token: clinic[ik] });
  const idOf = async (identifier: string, ik: string) =>
    waitFor(async () => {
      const search = await stack.api<{ entry?: { resource: { id: string; owner: { identifier: { value: string } } } }[] }>(
        'GET',
        `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`,
        { token: referrer },
      );
      return search.body.entry?.find((entry) => entry.resource.owner.identifier.value === ik)?.resource.id;
    });
  const answer = (ik: string, taskId: string, businessStatus: string, note?: string) =>
    stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: clinic[ik], body: { businessStatus, ...(note ? { note } : {}) } });
  const newRequest = () => `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;

  it('lists one summary per Task with what a person judges a request by, and no master data', async () => {
    const identifier = newRequest();
    await send(identifier, { occurrenceDate: '2026-12-03', specialty: 'orthopedics' });
    const taskId = await idOf(identifier, A);
    const response = await list(A);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const summary = response.body.items.find((item) => item.id === taskId);
    // The fixture's patient was born on 1956-01-01: the age is this year's number less 1956.
    const age = new Date().getUTCFullYear() - 1956;
    expect(summary).toEqual({
      id: taskId,
      status: 'requested',
      authoredOn: expect.any(String),
      lastModified: expect.any(String),
      // The party's default answer deadline (docs/api.md, "Answer deadlines").
      deadline: expect.any(String),
      version: 1,
      request: {
        status: 'active',
        intent: 'proposal',
        serviceType: 'full-inpatient-rehabilitation',
        occurrenceDate: '2026-12-03',
        departmentCode: '2300',
        specialty: 'orthopedics',
        requesterIk: REFERRER_IK,
        requesterName: 'Akutklinik Mitte',
      },
      patient: { dataLevel: 'masked', gender: 'female', age },
      mainDiagnosis: { code: 'S72.01', display: 'Schenkelhalsfraktur: Intrakapsulär' },
    });
    expect(JSON.stringify(response.body)).not.toMatch(/Musterfrau|Berlin|10115/);
  });

  it('orders open Tasks first, then the most recently changed, and counts each tab', async () => {
    const [first, second, third] = [newRequest(), newRequest(), newRequest()];
    for (const identifier of [first, second, third]) await send(identifier);
    const ids = await Promise.all([first, second, third].map((identifier) => idOf(identifier, A)));
    expect((await answer(A, ids[2]!, 'accepted')).status).toBe(200);
    expect((await answer(A, ids[0]!, 'query', 'Befund?')).status).toBe(200);

    const all = (await list(A)).body;
    const order = all.items.map((item) => item.id).filter((id) => ids.includes(id));
    expect(order).toEqual([ids[1], ids[0], ids[2]]);
    expect(all.items.findIndex((item) => item.status !== 'requested')).toBeGreaterThan(all.items.findLastIndex((item) => item.status === 'requested'));

    const answered = (await list(A, '?state=answered')).body;
    expect(answered.items.every((item) => ['accepted', 'rejected', 'on-hold'].includes(item.status))).toBe(true);
    expect(answered.total).toBe(answered.counts.answered);
    expect(answered.items.map((item) => item.id)).toEqual(expect.arrayContaining([ids[0], ids[2]]));
    const both = (await list(A, '?state=new,answered')).body;
    expect(both.total).toBe(both.counts.new! + both.counts.answered!);
    expect(Object.keys(all.counts).sort()).toEqual(['answered', 'cancelled', 'new', 'selected']);
    expect(all.total).toBe(Object.values(all.counts).reduce((sum, count) => sum + count, 0));

    // since: only what changed at or after it; _count and _offset page.
    const since = all.items.find((item) => item.id === ids[0])!.lastModified;
    const changed = (await list(A, `?since=${encodeURIComponent(since)}`)).body.items.map((item) => item.id);
    expect(changed).toContain(ids[0]);
    expect(changed).not.toContain(ids[2]);
    const page = (await list(A, '?_count=1&_offset=1')).body;
    expect(page.items.map((item) => item.id)).toEqual([all.items[1]!.id]);
  });

  it('refuses what it does not take: unknown parameters, bad values, no token, a referrer token', async () => {
    for (const query of [
      '?status=requested',
      '?state=open',
      '?state=new&state=answered',
      '?_count=0',
      '?_count=1001',
      '?_offset=-1',
      '?since=yesterday',
      '?since=2026-11-21T10:00:00',
    ]) {
      const response = await list(A, query);
      expect({ query, status: response.status }).toEqual({ query, status: 400 });
      expect(response.body).toEqual({ error: 'invalid_request', message: expect.any(String) });
    }
    expect((await stack.api('GET', '/api/v1/clinic/tasks')).status).toBe(401);
    expect((await stack.api('GET', '/api/v1/clinic/tasks', { token: referrer })).status).toBe(403);
  });

  it('gives each clinic the versions it was sent: not the selection of another, not a withdrawal', async () => {
    const identifier = newRequest();
    await send(identifier, { notes: ['eins'] });
    const [taskA, taskB] = [await idOf(identifier, A), await idOf(identifier, B)];
    await answer(B, taskB, 'accepted');
    await send(identifier, { intent: 'order', orderDetail: 'selected-provider', performerIks: [B] });
    expect((await list(B, '?state=selected')).body.items.find((item) => item.id === taskB)).toMatchObject({
      status: 'in-progress',
      version: 2,
      patient: { dataLevel: 'complete' },
      request: { intent: 'order', orderDetail: 'selected-provider' },
    });
    await send(identifier, { intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [B], patient: 'complete' });
    await send(identifier, { notes: ['vier'] });
    await waitFor(async () => (await list(A, '?state=new')).body.items.some((item) => item.id === taskA && item.version === 4), { what: 'version 4 at A' });

    const versions = async (ik: string, taskId: string) => {
      const response = await stack.api<{ items: { version: number; receivedAt: string; bundle: { resourceType: string } }[] }>(
        'GET',
        `/api/v1/clinic/tasks/${taskId}/versions`,
        { token: clinic[ik] },
      );
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      return response.body.items;
    };
    const ofA = await versions(A, taskA);
    expect(ofA.map((version) => version.version)).toEqual([1, 4]);
    expect(JSON.stringify(ofA)).not.toContain('Musterfrau');
    const ofB = await versions(B, taskB);
    expect(ofB.map((version) => version.version)).toEqual([1, 2, 4]);
    expect(JSON.stringify(ofB[1])).toContain('Musterfrau');

    expect((await stack.api('GET', `/api/v1/clinic/tasks/${taskA}/versions`, { token: clinic[B] })).status).toBe(404);
    expect((await stack.api('GET', `/api/v1/clinic/tasks/not-a-uuid/versions`, { token: clinic[A] })).status).toBe(404);
    expect((await stack.api('GET', `/api/v1/clinic/tasks/${randomUUID()}/versions`, { token: clinic[A] })).status).toBe(404);
    expect((await stack.api('GET', `/api/v1/clinic/tasks/${taskA}/versions`, { token: referrer })).status).toBe(403);

    // A page at a time, newest first: `next` (a relative reference) goes on from the version left out.
    const page = (query: string) => stack.api<Page<{ version: number }>>('GET', `/api/v1/clinic/tasks/${taskB}/versions${query}`, { token: clinic[B] });
    const newest = await page('?_sort=-version&_count=2');
    expect([newest.body.items.map((item) => item.version), newest.body.total, newest.body.next]).toEqual([[4, 2], 3, '?_count=2&_offset=2&_sort=-version']);
    const rest = await page(newest.body.next!);
    expect([rest.body.items.map((item) => item.version), rest.body.total, rest.body.next]).toEqual([[1], 3, undefined]);
    for (const [query, message] of [
      ['?_sort=receivedAt', '_sort: version or -version'],
      ['?_count=51', '_count: a whole number from 1 to 50'],
      ['?state=new', 'unknown parameter state (known: _count, _offset, _sort)'],
    ]) {
      const refused = await page(query!);
      expect([query, refused.status, refused.body]).toEqual([query, 400, { error: 'invalid_request', message }]);
    }
  });

  it("gives a request's documents a page at a time, and one document by its position without the others", async () => {
    const identifier = newRequest();
    await send(identifier);
    const [taskA, taskB] = [await idOf(identifier, A), await idOf(identifier, B)];
    for (const [index, text] of ['Befund 1', 'Befund 2', 'Befund 3'].entries()) {
      const bundle = documentBundle({
        requestIdentifier: identifier,
        timestamp: `2026-11-2${index + 1}T10:00:00Z`,
        documents: [{ contentType: 'text/plain', text }],
      });
      expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: bundle })).status).toBe(202);
    }
    type Documents = Page<{ timestamp: string }>;
    const page = (query: string, ik = A) =>
      stack.api<Documents>('GET', `/api/v1/clinic/tasks/${ik === A ? taskA : taskB}/documents${query}`, { token: clinic[ik] });
    await waitFor(async () => (await page('')).body.total === 3 || undefined, { what: 'the three documents' });

    const first = await page('?_count=2');
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect([first.body.items.map((item) => item.timestamp), first.body.total, first.body.next]).toEqual([
      ['2026-11-21T10:00:00Z', '2026-11-22T10:00:00Z'],
      3,
      '?_count=2&_offset=2',
    ]);
    const rest = await page(first.body.next!);
    expect([rest.body.items.map((item) => item.timestamp), rest.body.next]).toEqual([['2026-11-23T10:00:00Z'], undefined]);
    expect((await page('?_page=2')).body).toEqual({ error: 'invalid_request', message: 'unknown parameter _page (known: _count, _offset)' });
    expect((await page('?_count=0')).status).toBe(400);

    const one = await stack.api<{ timestamp: string }>('GET', `/api/v1/clinic/tasks/${taskB}/documents/2`, { token: clinic[B] });
    expect([one.status, one.headers.get('content-type'), one.headers.get('cache-control'), one.body.timestamp]).toEqual([
      200,
      'application/fhir+json; charset=utf-8',
      'no-store',
      '2026-11-23T10:00:00Z',
    ]);
    expect((await stack.api('GET', `/api/v1/clinic/tasks/${taskB}/documents/3`, { token: clinic[B] })).status).toBe(404);
    expect((await stack.api('GET', `/api/v1/clinic/tasks/${taskB}/documents/last`, { token: clinic[B] })).status).toBe(404);
    expect((await stack.api('GET', `/api/v1/clinic/tasks/${taskB}/documents/0`, { token: clinic[A] })).status).toBe(404);
  });
});
