import { IK_NUMBER_SYSTEM, MAX_ISSUES, TASK_SEARCH_PARAMETERS, URI_IDENTIFIER_SYSTEM, type TaskSearchParameterName } from '@bedrequest/fhir-model';
import type { Viewer } from '../access';
import { admits, DEFAULT_PAGE_SIZE } from '../search';
import { answerParts, parseTaskRead, parseTaskSearch } from './task-search';

const referrer: Viewer = { role: 'referrer', partyId: 'referrer-1' };
const identifier = 'https://hospital.example/fhir/ServiceRequest/1';

/** A refusal's status and issues, or a failure naming what was accepted instead. */
function refusalOf(parsed: ReturnType<typeof parseTaskSearch> | ReturnType<typeof parseTaskRead>) {
  if (parsed.ok) throw new Error(`accepted: ${JSON.stringify(parsed)}`);
  return parsed;
}

function searchOf(query: Record<string, unknown>) {
  const parsed = parseTaskSearch(query, referrer);
  if (!parsed.ok) throw new Error(`refused: ${JSON.stringify(parsed.issues)}`);
  return parsed.search;
}

describe('parseTaskSearch (docs/api.md, "Tasks")', () => {
  it('takes based-on in both forms (repeatable, ANDed), owner with or without its system, and the defaults for paging and results', () => {
    const parsed = parseTaskSearch(
      { 'based-on': [identifier, identifier], 'based-on:identifier': `${URI_IDENTIFIER_SYSTEM}|${identifier}`, owner: `${IK_NUMBER_SYSTEM}|510000001` },
      referrer,
    );

    expect(parsed).toEqual({
      ok: true,
      search: {
        viewer: referrer,
        requestIdentifiers: [identifier, identifier, identifier],
        ownerIk: '510000001',
        lastModified: [],
        count: DEFAULT_PAGE_SIZE,
        offset: 0,
        total: 'accurate',
        summaryCount: false,
      },
    });
  });

  it('takes comma-separated codes, _lastUpdated prefixes (repeatable), _count and _offset', () => {
    const search = searchOf({
      status: 'requested,on-hold',
      'business-status': 'query,accepted',
      _lastUpdated: ['ge2026-01-01', 'lt2026-02-01T10:00:00+01:00'],
      _count: '2',
      _offset: '4',
    });

    expect(search).toMatchObject({
      statuses: ['requested', 'on-hold'],
      businessStatuses: ['query', 'accepted'],
      lastModified: [{ from: new Date('2026-01-01T00:00:00Z') }, { before: new Date('2026-02-01T09:00:00Z') }],
      count: 2,
      offset: 4,
    });
  });

  it("reads a _lastUpdated day as the whole UTC day, with or without eq, so that the day's Tasks match", () => {
    for (const value of ['2026-11-22', 'eq2026-11-22']) {
      const [condition] = searchOf({ _lastUpdated: value }).lastModified;

      expect(condition).toEqual({ from: new Date('2026-11-22T00:00:00Z'), before: new Date('2026-11-23T00:00:00Z') });
      expect(admits(condition!, new Date('2026-11-22T14:03:27.512Z'))).toBe(true);
    }
  });

  it.each(['ne', 'gt', 'ge', 'lt', 'le', 'sa', 'eb'])('takes the prefix %s on _lastUpdated', (prefix) => {
    expect(searchOf({ _lastUpdated: `${prefix}2026-11` }).lastModified).toHaveLength(1);
  });

  it('ANDs repeated _lastUpdated conditions: ge and lt of a day make the day', () => {
    const conditions = searchOf({ _lastUpdated: ['ge2026-11-22', 'lt2026-11-23'] }).lastModified;
    const within = (iso: string) => conditions.every((condition) => admits(condition, new Date(iso)));

    expect([
      within('2026-11-21T23:59:59.999Z'),
      within('2026-11-22T00:00:00.000Z'),
      within('2026-11-22T23:59:59.999Z'),
      within('2026-11-23T00:00:00.000Z'),
    ]).toEqual([false, true, true, false]);
  });

  it('knows every parameter TASK_SEARCH_PARAMETERS declares', () => {
    const samples: Record<TaskSearchParameterName, string> = {
      'based-on': identifier,
      owner: '510000001',
      'business-status': 'accepted',
      status: 'requested',
      _lastUpdated: '2026',
      overdue: 'true',
    };
    for (const { name } of TASK_SEARCH_PARAMETERS) expect(parseTaskSearch({ [name]: samples[name] }, referrer).ok).toBe(true);
  });

  it.each([
    [{ color: 'blue' }, 'color'],
    [{ 'based-on:identifier': identifier }, 'based-on:identifier'],
    [{ 'based-on:missing': 'true' }, 'based-on:missing'],
    [{ 'owner:identifier': `${IK_NUMBER_SYSTEM}|510000001` }, 'owner:identifier'],
    [{ owner: '51000000' }, 'owner'],
    [{ owner: `urn:other|510000001` }, 'owner'],
    [{ owner: ['510000001', '510000002'] }, 'owner'],
    [{ status: 'requested,done' }, 'status'],
    [{ 'business-status': 'maybe' }, 'business-status'],
    [{ overdue: 'yes' }, 'overdue'],
    [{ overdue: ['true', 'false'] }, 'overdue'],
    [{ _lastUpdated: 'xx2026-01-01' }, '_lastUpdated'],
    [{ _lastUpdated: ['ge2026-01-01', '2026-02-30'] }, '_lastUpdated'],
    [{ _count: '-1' }, '_count'],
    [{ _count: '501' }, '_count'],
    [{ _count: '2.5' }, '_count'],
    [{ _offset: '-1' }, '_offset'],
    [{ _offset: '1e30' }, '_offset'],
    [{ _offset: '10001' }, '_offset'],
    [{ _cursor: 'not-a-cursor' }, '_cursor'],
    [{ _cursor: Buffer.from('["2026-11-22T10:00:00.000Z","x"]').toString('base64url') }, '_cursor'],
    [{ _cursor: Buffer.from('["2026-11-22T10:00:00.000Z","7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01"]').toString('base64url'), _offset: '5' }, '_offset'],
    [{ _total: 'maybe' }, '_total'],
    [{ _summary: 'true' }, '_summary'],
    [{ _summary: 'text' }, '_summary'],
    [{ _elements: 'status,favouriteColour' }, '_elements'],
    [{ _elements: '' }, '_elements'],
    [{ _sort: '_lastUpdated' }, '_sort'],
    [{ _pretty: 'true' }, '_pretty'],
  ])('refuses %j with 400 and an issue on %s', (query, expression) => {
    const refusal = refusalOf(parseTaskSearch(query, referrer));

    expect(refusal.status).toBe(400);
    expect(refusal.issues).toEqual([expect.objectContaining({ code: 'invalid', expression })]);
  });

  it('names an unknown parameter and the parameters it knows', () => {
    const [issue] = refusalOf(parseTaskSearch({ lastUpdated: '2026' }, referrer)).issues;

    expect(issue!.diagnostics).toMatch(
      /^lastUpdated: unknown parameter \(known: based-on, owner, business-status, status, _lastUpdated, overdue, _count, .*_format\)$/,
    );
  });

  it('names a malformed _lastUpdated and quotes at most 64 characters of its value', () => {
    const [short] = refusalOf(parseTaskSearch({ _lastUpdated: '2026-13-01' }, referrer)).issues;
    const [long] = refusalOf(parseTaskSearch({ _lastUpdated: `2026-11-22${'x'.repeat(3_000_000)}` }, referrer)).issues;

    expect(short).toMatchObject({ expression: '_lastUpdated', diagnostics: expect.stringContaining("_lastUpdated: '2026-13-01' is not a date") });
    expect(long!.diagnostics).toContain(`'2026-11-22${'x'.repeat(54)}…(3000010 characters)'`);
    expect(long!.diagnostics.length).toBeLessThan(200);
  });

  it('keeps the answer small whatever the query: long names quoted in part, at most MAX_ISSUES issues', () => {
    const query = Object.fromEntries(Array.from({ length: 1000 }, (_, n) => [`unknown-${n}-${'y'.repeat(1000)}`, 'x']));
    const { status, issues } = refusalOf(parseTaskSearch(query, referrer));

    expect(status).toBe(400);
    expect(issues).toHaveLength(MAX_ISSUES + 1);
    expect(issues.at(-1)).toEqual({ severity: 'information', code: 'informational', diagnostics: `${1000 - MAX_ISSUES} further issues are not listed` });
    expect(issues[0]!.expression).toBe(`unknown-0-${'y'.repeat(54)}…(1010 characters)`);
    expect(JSON.stringify(issues).length).toBeLessThan(MAX_ISSUES * 1000);
  });

  it.each([
    ['none', 'none'],
    ['accurate', 'accurate'],
    ['estimate', 'accurate'],
  ])('takes _total=%s (answered as %s)', (value, total) => {
    expect(searchOf({ _total: value }).total).toBe(total);
  });

  it.each([
    [{}, { total: true, entries: true }],
    [{ _total: 'none' }, { total: false, entries: true }],
    [{ _summary: 'count' }, { total: true, entries: false }],
    [{ _count: '0' }, { total: true, entries: false }],
    [
      { _count: '0', _total: 'none' },
      { total: false, entries: false },
    ],
    [{ _summary: 'false' }, { total: true, entries: true }],
    [{ _summary: 'data' }, { total: true, entries: true }],
  ])('answers %j with %j', (query, parts) => {
    expect(answerParts(searchOf(query))).toEqual(parts);
  });

  it('refuses _summary=count with _total=none, which ask for opposite things', () => {
    expect(refusalOf(parseTaskSearch({ _summary: 'count', _total: 'none' }, referrer)).issues).toEqual([expect.objectContaining({ expression: '_total' })]);
  });

  it('takes _elements as a list of Task elements, also ones no Task here carries', () => {
    expect(searchOf({ _elements: 'status,businessStatus,note,priority' }).elements).toEqual(['status', 'businessStatus', 'note', 'priority']);
  });

  it('names every unknown element of _elements', () => {
    const [issue] = refusalOf(parseTaskSearch({ _elements: 'status,Task.status,foo' }, referrer)).issues;

    expect(issue!.diagnostics).toBe("_elements: not an element of Task: 'Task.status', 'foo'");
  });

  it.each(['json', 'application/json', 'application/fhir+json', 'application/fhir json', 'Application/FHIR+JSON'])('takes _format=%s', (format) => {
    expect(parseTaskSearch({ _format: format, status: 'requested' }, referrer).ok).toBe(true);
  });

  it.each(['xml', 'application/fhir+xml', 'text/turtle', 'html', ''])('answers _format=%j with 406, before any other problem', (format) => {
    const refusal = refusalOf(parseTaskSearch({ color: 'blue', _format: format }, referrer));

    expect(refusal).toMatchObject({ status: 406, issues: [{ code: 'not-supported', expression: '_format' }] });
    expect(refusal.issues).toHaveLength(1);
  });
});

describe('parseTaskRead', () => {
  it('takes _format and _elements', () => {
    expect(parseTaskRead({ _format: 'json', _elements: 'status,owner' })).toEqual({ ok: true, shape: { elements: ['status', 'owner'] } });
    expect(parseTaskRead({})).toEqual({ ok: true, shape: {} });
  });

  it.each([
    [{ _format: 'xml' }, 406, '_format'],
    [{ _elements: 'colour' }, 400, '_elements'],
    [{ _count: '5' }, 400, '_count'],
    [{ status: 'requested' }, 400, 'status'],
  ])('refuses %j with %d', (query, status, expression) => {
    expect(refusalOf(parseTaskRead(query))).toMatchObject({ status, issues: [{ expression }] });
  });
});
