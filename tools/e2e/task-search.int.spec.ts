// The Task search through the gateway, end to end (docs/api.md, "Tasks"): FHIR's precision-based
// `_lastUpdated` matching and the result parameters `_summary`, `_total`, `_elements` and
// `_format`, on Tasks the real stack created from a posted bundle. End-to-end tests live outside
// the apps, so no app imports another.
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface Task {
  resourceType: 'Task';
  id: string;
  meta: { lastUpdated: string; tag?: { system: string; code: string }[] };
  [element: string]: unknown;
}
interface SearchSet {
  resourceType: 'Bundle';
  type: 'searchset';
  total?: number;
  link: { relation: string; url: string }[];
  entry?: { fullUrl: string; resource: Task }[];
}
interface OperationOutcome {
  resourceType: 'OperationOutcome';
  issue: { severity: string; code: string; diagnostics: string; expression?: string[] }[];
}

const SUBSETTED = { system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED', display: 'subsetted' };

describe('the Task search through the gateway', () => {
  let stack: E2eStack;
  let referrer: string;
  let taskIds: string[];
  /** The UTC day the Tasks were last updated on: today, read off the Tasks so that midnight cannot fall between. */
  let day: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    for (const ik of FIXTURE_PERFORMER_IKS) await stack.registerClinic(ik, `Rehaklinik ${ik}`, ['2300']);
    await stack.createReferrer('search-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    referrer = await stack.login('search-hospital');
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const posted = await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle({ requestIdentifier: identifier }) });
    expect(posted.status).toBe(202);
    const tasks = await waitFor(
      async () => {
        const { body } = await search(`based-on=${encodeURIComponent(identifier)}`);
        return body.entry?.length === FIXTURE_PERFORMER_IKS.length ? body.entry.map((entry) => entry.resource) : undefined;
      },
      { what: 'the Tasks of the posted request' },
    );
    taskIds = tasks.map((task) => task.id).sort();
    day = tasks[0]!.meta.lastUpdated.slice(0, 10);
    expect(tasks.every((task) => task.meta.lastUpdated.startsWith(day))).toBe(true);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const search = (query: string) => stack.api<SearchSet>('GET', `/api/v2/fhir/Task?${query}`, { token: referrer });
  const refused = (query: string) => stack.api<OperationOutcome>('GET', `/api/v2/fhir/Task?${query}`, { token: referrer });
  const idsOf = (bundle: SearchSet) => (bundle.entry ?? []).map((entry) => entry.resource.id).sort();

  it('finds the Tasks of today by _lastUpdated=<today>: a date is the whole day', async () => {
    const { status, body } = await search(`_lastUpdated=${day}`);

    expect(status).toBe(200);
    expect(body.total).toBe(2);
    expect(idsOf(body)).toEqual(taskIds);
  });

  it('finds them with eq, ge and le of today and by the month and the year, and none with ne, lt, gt, sa and eb of today', async () => {
    for (const value of [`eq${day}`, `ge${day}`, `le${day}`, day.slice(0, 7), day.slice(0, 4), `ge${day.slice(0, 4)}-01-01`]) {
      expect({ value, ids: idsOf((await search(`_lastUpdated=${value}`)).body) }).toEqual({ value, ids: taskIds });
    }
    for (const value of [`ne${day}`, `lt${day}`, `gt${day}`, `sa${day}`, `eb${day}`]) {
      expect({ value, total: (await search(`_lastUpdated=${value}`)).body.total }).toEqual({ value, total: 0 });
    }
  });

  it('matches a minute with its time zone, written as a client writes it ("+" percent-encoded)', async () => {
    const { body: task } = await stack.api<Task>('GET', `/api/v2/fhir/Task/${taskIds[0]}`, { token: referrer });
    const minute = task.meta.lastUpdated.slice(0, 16);
    // The same minute one hour east of UTC.
    const east = new Date(Date.parse(`${minute}:00Z`) + 3_600_000).toISOString().slice(0, 16);

    expect(idsOf((await search(`_lastUpdated=${minute}Z`)).body)).toContain(taskIds[0]);
    expect(idsOf((await search(`_lastUpdated=${encodeURIComponent(`${east}+01:00`)}`)).body)).toContain(taskIds[0]);
  });

  it('answers _summary=count with the total and no entries', async () => {
    const { status, body } = await search(`_lastUpdated=${day}&_summary=count`);

    expect(status).toBe(200);
    expect(body).toEqual({ resourceType: 'Bundle', type: 'searchset', total: 2, link: [{ relation: 'self', url: expect.stringContaining('_summary=count') }] });
  });

  it('answers _total=none without a total, and its next links carry the result parameters', async () => {
    const first = await search('_total=none&_elements=status&_count=1&_format=json');

    expect(first.status).toBe(200);
    expect(first.body).not.toHaveProperty('total');
    const next = first.body.link.find((link) => link.relation === 'next')!.url;
    expect(new URL(next).searchParams.toString()).toBe('_total=none&_elements=status&_count=1&_format=json&_offset=1');

    const second = await stack.api<SearchSet>('GET', new URL(next).pathname + new URL(next).search, { token: referrer });
    expect(second.body).not.toHaveProperty('total');
    expect(second.body.link.map((link) => link.relation)).toEqual(['self']);
    expect([...idsOf(first.body), ...idsOf(second.body)].sort()).toEqual(taskIds);
    expect(Object.keys(second.body.entry![0]!.resource)).toEqual(['resourceType', 'id', 'meta', 'status', 'intent']);
  });

  it('answers _elements=status with Tasks of the mandatory elements and status, tagged SUBSETTED', async () => {
    const { body } = await search('_elements=status');

    for (const { resource } of body.entry!) {
      expect(Object.keys(resource)).toEqual(['resourceType', 'id', 'meta', 'status', 'intent']);
      expect(resource.meta.tag).toEqual([SUBSETTED]);
    }
    const { body: read } = await stack.api<Task>('GET', `/api/v2/fhir/Task/${taskIds[0]}?_elements=status,owner`, { token: referrer });
    expect(Object.keys(read)).toEqual(['resourceType', 'id', 'meta', 'status', 'intent', 'owner']);
  });

  it('takes _format=json and application/fhir+json on search and read, and answers other formats with 406', async () => {
    for (const format of ['json', 'application/json', encodeURIComponent('application/fhir+json'), 'application/fhir+json']) {
      const { status, body, headers } = await search(`_format=${format}`);
      expect({ format, status, ids: idsOf(body) }).toEqual({ format, status: 200, ids: taskIds });
      expect(headers.get('content-type')).toBe('application/fhir+json; charset=utf-8');
      expect((await stack.api('GET', `/api/v2/fhir/Task/${taskIds[0]}?_format=${format}`, { token: referrer })).status).toBe(200);
    }
    for (const path of ['/api/v2/fhir/Task?_format=xml', `/api/v2/fhir/Task/${taskIds[0]}?_format=application/fhir%2Bxml`]) {
      const { status, body } = await stack.api<OperationOutcome>('GET', path, { token: referrer });
      expect({ path, status }).toEqual({ path, status: 406 });
      expect(body.issue).toEqual([expect.objectContaining({ code: 'not-supported', expression: ['_format'] })]);
    }
  });

  it('answers an unknown parameter with 400 naming it, on search and read', async () => {
    const { status, body } = await refused(`_lastUpdated=${day}&colour=blue`);

    expect(status).toBe(400);
    expect(body.issue).toEqual([
      expect.objectContaining({ code: 'invalid', expression: ['colour'], diagnostics: expect.stringMatching(/^colour: unknown parameter/) }),
    ]);
    const read = await stack.api<OperationOutcome>('GET', `/api/v2/fhir/Task/${taskIds[0]}?colour=blue`, { token: referrer });
    expect(read.status).toBe(400);
    expect(read.body.issue[0]!.expression).toEqual(['colour']);
  });

  it('answers a malformed _lastUpdated with 400 naming it and quoting a short excerpt of the value', async () => {
    const { status, body } = await refused(`_lastUpdated=${day}T25:00Z${'9'.repeat(5000)}`);

    expect(status).toBe(400);
    expect(body.issue).toEqual([expect.objectContaining({ code: 'invalid', expression: ['_lastUpdated'] })]);
    expect(body.issue[0]!.diagnostics).toContain(`'${day}T25:00Z`);
    expect(JSON.stringify(body).length).toBeLessThan(600);
  });
});
