import type { BundleEntry, Task } from '@medplum/fhirtypes';
import { Client } from 'pg';
import { fhirSystems, URI_IDENTIFIER_SYSTEM } from '@bedrequest/fhir-model';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { AuditTrailRepository, AuditTrail } from '../audit';
import { openIntakeDatabase, type IntakeDatabase, prismaRunner, sealedFor } from '../persistence';
import { testSealedFields } from '../testing';
import { TaskReadRepository } from './task-read.repository';
import { TaskReadService } from './task-read.service';
import type { Viewer } from '../access';
import { admits, parseDateCondition } from '../search';

const env = testEnvironment();
const LINKS = { base: 'https://gateway.example', path: '/api/v2/fhir/Task' };
const CLINICS = ['510000001', '510000002', '510000003', '510000004', '510000005', '510000006', '510000007'];
const STATUSES = ['requested', 'accepted', 'rejected', 'on-hold', 'cancelled', 'in-progress'];
const BUSINESS_STATUSES = [null, 'accepted', 'declined', 'query', 'more-data-required'];
/** Few distinct instants, so that many Tasks tie on lastModified and the id decides their order. */
const INSTANTS = ['2026-03-01T08:00:00.000Z', '2026-03-01T08:00:00.001Z', '2026-03-02T12:30:00.000Z', '2026-03-05T00:00:00.000Z'];
/** `_lastUpdated` values of every precision around INSTANTS. */
const DATE_VALUES = [
  ...INSTANTS,
  '2026',
  '2027',
  '2026-03',
  '2026-02',
  '2026-03-01',
  '2026-03-02',
  '2026-03-04',
  '2026-03-05',
  '2026-03-02T12:30Z',
  '2026-03-01T09:00+01:00',
];
const DATE_PREFIXES = ['', 'eq', 'ne', 'gt', 'ge', 'lt', 'le', 'sa', 'eb'];
const DAY_MS = 86_400_000;
/** One Task per clinic at these instants: the edges of 2026-11-22, of November 2026 and of 2026. */
const EDGE_INSTANTS = [
  '2025-12-31T23:59:59.999Z',
  '2026-11-21T23:59:59.999Z',
  '2026-11-22T00:00:00.000Z',
  '2026-11-22T12:00:00.000Z',
  '2026-11-22T23:59:59.999Z',
  '2026-11-23T00:00:00.000Z',
  '2027-01-01T00:00:00.000Z',
];

/**
 * The range [start, end) a `_lastUpdated` value of DATE_VALUES stands for (FHIR R4 search.html#date,
 * UTC where no zone is given), worked out here independently of search-date.ts.
 */
function rangeOf(value: string): [number, number] {
  if (/^\d{4}$/.test(value)) return [Date.UTC(Number(value), 0, 1), Date.UTC(Number(value) + 1, 0, 1)];
  if (/^\d{4}-\d{2}$/.test(value)) return [Date.parse(`${value}-01T00:00:00Z`), Date.UTC(Number(value.slice(0, 4)), Number(value.slice(5)), 1)];
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return [Date.parse(`${value}T00:00:00Z`), Date.parse(`${value}T00:00:00Z`) + DAY_MS];
  if (/T\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$/.test(value)) return [Date.parse(value), Date.parse(value) + 60_000];
  return [Date.parse(value), Date.parse(value) + 1];
}

/** search.html#prefix for an instant `at` against the value's range. */
function dateMatches(prefixed: string, at: number): boolean {
  const [, prefix = 'eq', value = ''] = /^(eq|ne|gt|ge|lt|le|sa|eb)?(.*)$/.exec(prefixed)!;
  const [start, end] = rangeOf(value);
  const within = start <= at && at < end;
  return { eq: within, ne: !within, gt: at >= end, sa: at >= end, ge: at >= start, lt: at < start, eb: at < start, le: at < end }[prefix]!;
}

/** A search's query string, as express parses it. */
type Query = Record<string, string | string[]>;

interface StoredFixtureTask {
  id: string;
  identifier: string;
  referrerPartyId: string;
  clinicIk: string;
  status: string;
  businessStatus: string | null;
  lastModified: string;
}

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * The Task search of docs/api.md against the real PostgreSQL: both statements (a `based-on` search
 * reads one request's Tasks, any other search pages in SQL), compared with the documented rules
 * evaluated here over the stored fixture.
 */
describe('Task search and read against the real PostgreSQL', () => {
  const schema = uniqueName('intake');
  let prisma: IntakeDatabase;
  let tasks: TaskReadService;
  const stored: StoredFixtureTask[] = [];
  const next = random(20260301);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)]!;
  const identifierOf = (referrer: string, n: number) => `https://hospital.example/fhir/ServiceRequest/${referrer}-${n}`;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    const fields = await testSealedFields(prisma, schema);
    tasks = new TaskReadService(
      new TaskReadRepository(prisma, schema, fields),
      fhirSystems('https://bedrequest.example.org'),
      new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema)),
    );
    // Referrer "a" and "a2" share every identifier prefix ("a-1" is a prefix of "a-10" and of "a2-1"...).
    const requests: { referrer: string; identifier: string; clinics: string[]; instants?: string[] }[] = [
      ...Array.from({ length: 9 }, (_, n) => ({ referrer: 'a', identifier: identifierOf('a', n + 1), clinics: CLINICS.filter(() => next() < 0.5) })),
      ...Array.from({ length: 12 }, (_, n) => ({ referrer: 'a2', identifier: identifierOf('a2', n + 1), clinics: CLINICS.filter(() => next() < 0.5) })),
      { referrer: 'a2', identifier: identifierOf('a', 1) + '0', clinics: CLINICS },
      // One request naming every clinic: its Tasks page within the request.
      { referrer: 'a', identifier: identifierOf('a', 99), clinics: CLINICS },
      // Tasks at the edges of a day, a month and a year, for the date matching in SQL.
      { referrer: 'edge', identifier: identifierOf('edge', 1), clinics: CLINICS, instants: EDGE_INSTANTS },
    ];
    const client = new Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      for (const request of requests) {
        const requestId = crypto.randomUUID();
        await client.query(
          `INSERT INTO "${schema}".admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
           VALUES ($1, $2, $3, '260000001', 'active', 'proposal', 1, 'hash', now())`,
          [requestId, request.identifier, request.referrer],
        );
        for (const [n, clinicIk] of request.clinics.entries()) {
          const [status, businessStatus, lastModified] = [pick(STATUSES), pick(BUSINESS_STATUSES), pick(INSTANTS)];
          const task = {
            id: crypto.randomUUID(),
            identifier: request.identifier,
            referrerPartyId: request.referrer,
            clinicIk,
            status,
            businessStatus,
            lastModified: request.instants?.[n] ?? lastModified,
          };
          const notes = task.businessStatus ? [{ text: `answer ${task.businessStatus}`, time: task.lastModified }] : [];
          await client.query(
            `INSERT INTO "${schema}".clinic_task (id, request_id, referrer_party_id, clinic_ik, status, business_status, sealed_notes, sent_version, authored_on, last_modified)
             SELECT $1, $2, r.referrer_party_id, $3, $4, $5, $6, 1, '2026-02-28T00:00:00Z', $7 FROM "${schema}".admission_request r WHERE r.id = $2`,
            [task.id, requestId, clinicIk, task.status, task.businessStatus, fields.seal(sealedFor.notes(task.id), notes), task.lastModified],
          );
          stored.push(task);
        }
      }
    } finally {
      await client.end();
    }
  });

  afterAll(() => prisma.$disconnect());

  /** docs/api.md, "Tasks": what a search must answer, evaluated over the fixture. */
  function expected(query: Query, viewer: Viewer): StoredFixtureTask[] {
    const values = (name: string) => [query[name] ?? []].flat();
    return stored
      .filter((task) => (viewer.role === 'referrer' ? task.referrerPartyId === viewer.partyId : viewer.ikNumbers.includes(task.clinicIk)))
      .filter((task) => values('based-on').every((value) => task.identifier === value))
      .filter((task) => values('based-on:identifier').every((value) => `${URI_IDENTIFIER_SYSTEM}|${task.identifier}` === value))
      .filter((task) => values('owner').every((value) => task.clinicIk === value))
      .filter((task) => values('status').every((value) => value.split(',').includes(task.status)))
      .filter((task) => values('business-status').every((value) => task.businessStatus !== null && value.split(',').includes(task.businessStatus)))
      .filter((task) => values('_lastUpdated').every((value) => dateMatches(value, Date.parse(task.lastModified))))
      .sort((x, y) => Date.parse(x.lastModified) - Date.parse(y.lastModified) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  }

  async function searchOk(query: Query, viewer: Viewer) {
    const result = await tasks.search(query, { viewer, user: 'search-user' }, LINKS);
    if (!result.ok) throw new Error(`search refused: ${JSON.stringify(result.issues)}`);
    return result.bundle;
  }

  /** Follows `next` links from the first page; every page's total and self link are checked on the way. */
  async function allPages(query: Query, viewer: Viewer) {
    const ids: string[] = [];
    let pageQuery: Query | undefined = query;
    let pages = 0;
    while (pageQuery) {
      const bundle = await searchOk(pageQuery, viewer);
      if (query._total === 'none') expect(bundle).not.toHaveProperty('total');
      else expect(bundle.total).toBe(expected(query, viewer).length);
      ids.push(...(bundle.entry ?? []).map((entry) => entry.resource!.id!));
      const nextUrl = bundle.link?.find((link) => link.relation === 'next')?.url;
      pageQuery = nextUrl ? Object.fromEntries(new URL(nextUrl).searchParams) : undefined;
      if (++pages > 100) throw new Error('next links do not end');
    }
    return { ids, pages };
  }

  it("shows a referrer only the Tasks of its own requests, also where another referrer's identifiers share the prefix", async () => {
    const foreign = identifierOf('a', 1) + '0';
    const { ids } = await allPages({}, { role: 'referrer', partyId: 'a' });
    expect(ids).toEqual(expected({}, { role: 'referrer', partyId: 'a' }).map((task) => task.id));
    expect(ids.some((id) => stored.find((task) => task.id === id)!.identifier === foreign)).toBe(false);

    // a2's request "…/a-10" exists; referrer a asks for it by its exact identifier, in both forms.
    expect(stored.some((task) => task.identifier === foreign)).toBe(true);
    const queries: Query[] = [{ 'based-on': foreign }, { 'based-on:identifier': `${URI_IDENTIFIER_SYSTEM}|${foreign}` }];
    for (const query of queries) {
      const bundle = await searchOk(query, { role: 'referrer', partyId: 'a' });
      expect(bundle).toMatchObject({ total: 0 });
      expect(bundle.entry).toBeUndefined();
    }
    const bundle = await searchOk({ 'based-on': foreign }, { role: 'referrer', partyId: 'a2' });
    expect(bundle.total).toBe(CLINICS.length);
  });

  it('shows a clinic only the Tasks addressed to one of its IKs, whoever the referrer', async () => {
    const viewer: Viewer = { role: 'clinic', ikNumbers: [CLINICS[0]!, CLINICS[3]!] };
    const { ids } = await allPages({ _count: '7' }, viewer);
    expect(ids).toEqual(expected({}, viewer).map((task) => task.id));

    const request = identifierOf('a', 99);
    const bundle = await searchOk({ 'based-on': request }, viewer);
    expect((bundle.entry ?? []).map((entry) => (entry.resource as Task).owner!.identifier!.value)).toEqual(
      expected({ 'based-on': request }, viewer).map((task) => task.clinicIk),
    );
    const empty = await searchOk({ owner: CLINICS[1]! }, viewer);
    expect(empty).toMatchObject({ total: 0 });
    expect(empty.entry).toBeUndefined();
  });

  it.each([
    ["one request's Tasks", { 'based-on': identifierOf('a', 99) }, { role: 'referrer', partyId: 'a' }],
    ["a referrer's Tasks", {}, { role: 'referrer', partyId: 'a2' }],
    ["a clinic's Tasks", { owner: CLINICS[2]! }, { role: 'clinic', ikNumbers: [CLINICS[2]!] }],
  ] as const)('pages %s with _count: each Task once, in lastModified then id order, the total on every page', async (_name, query, viewer) => {
    const all = expected(query, viewer);
    expect(all.length).toBeGreaterThan(4);
    for (const count of [1, 2, 3, all.length, 500]) {
      const { ids, pages } = await allPages({ ...query, _count: String(count) }, viewer);
      expect(ids).toEqual(all.map((task) => task.id));
      expect(pages).toBe(Math.max(1, Math.ceil(all.length / count)));
    }
  });

  it('pages with _total=none: the same Tasks and next links, no total', async () => {
    const cases: [Query, Viewer][] = [
      [{ 'based-on': identifierOf('a', 99) }, { role: 'referrer', partyId: 'a' }],
      [{}, { role: 'referrer', partyId: 'a2' }],
      [{ owner: CLINICS[2]! }, { role: 'clinic', ikNumbers: [CLINICS[2]!] }],
    ];
    for (const [query, viewer] of cases) {
      const all = expected(query, viewer);
      for (const count of [1, 3, all.length]) {
        const { ids, pages } = await allPages({ ...query, _count: String(count), _total: 'none' }, viewer);
        expect(ids).toEqual(all.map((task) => task.id));
        expect(pages).toBe(Math.ceil(all.length / count));
      }
    }
  });

  it('answers _summary=count and _count=0 with the total alone, in both statements', async () => {
    const cases: [Query, Viewer][] = [
      [{ 'based-on': identifierOf('a', 99) }, { role: 'referrer', partyId: 'a' }],
      [{}, { role: 'referrer', partyId: 'a2' }],
      [{ status: 'requested,accepted' }, { role: 'clinic', ikNumbers: [CLINICS[1]!, CLINICS[4]!] }],
      [{}, { role: 'referrer', partyId: 'nobody' }],
    ];
    for (const [query, viewer] of cases) {
      const total = expected(query, viewer).length;
      const results: Query[] = [{ _summary: 'count' }, { _count: '0' }, { _summary: 'count', _count: '3', _offset: '2' }];
      for (const result of results) {
        const bundle = await searchOk({ ...query, ...result }, viewer);
        expect(bundle.total).toBe(total);
        expect(bundle.entry ?? []).toEqual([]);
        expect(bundle.link!.map((link) => link.relation)).toEqual(['self']);
      }
    }
    expect((await searchOk({ _count: '0', _total: 'none' }, { role: 'referrer', partyId: 'a2' })).total).toBeUndefined();
  });

  it('matches _lastUpdated in SQL exactly as search-date.ts admits, at the edges of each precision, in every statement', async () => {
    const viewer: Viewer = { role: 'referrer', partyId: 'edge' };
    const edgeTasks = stored.filter((task) => task.referrerPartyId === 'edge');
    const values = [
      '2026-11-22',
      '2026-11',
      '2026',
      '2026-11-22T23:59Z',
      '2026-11-22T23:59:59.999Z',
      '2026-11-22T00:00+01:00',
      '2026-11-22T12:00:00Z',
      '2026-11-22T12:00:00.0004Z',
      '9999',
      '0001',
    ];
    for (const value of values) {
      for (const prefix of DATE_PREFIXES) {
        const condition = parseDateCondition(`${prefix}${value}`)!;
        const want = edgeTasks
          .filter((task) => admits(condition, new Date(task.lastModified)))
          .map((task) => task.id)
          .sort();
        const lastUpdated = { _lastUpdated: `${prefix}${value}` };
        for (const query of [lastUpdated, { ...lastUpdated, 'based-on': identifierOf('edge', 1) }, { ...lastUpdated, _total: 'none' }]) {
          const bundle = await searchOk(query, viewer);
          expect({ query, ids: (bundle.entry ?? []).map((entry) => entry.resource!.id).sort() }).toEqual({ query, ids: want });
        }
        expect({ value: `${prefix}${value}`, total: (await searchOk({ ...lastUpdated, _summary: 'count' }, viewer)).total }).toEqual({
          value: `${prefix}${value}`,
          total: want.length,
        });
      }
    }
    // The edges themselves, as docs/api.md states them.
    const idsAt = (...instants: string[]) =>
      edgeTasks
        .filter((task) => instants.includes(task.lastModified))
        .map((task) => task.id)
        .sort();
    const found = async (lastUpdated: string) =>
      ((await searchOk({ _lastUpdated: lastUpdated }, viewer)).entry ?? []).map((entry) => entry.resource!.id).sort();
    expect(await found('2026-11-22')).toEqual(idsAt('2026-11-22T00:00:00.000Z', '2026-11-22T12:00:00.000Z', '2026-11-22T23:59:59.999Z'));
    expect(await found('lt2026-11-22')).toEqual(idsAt('2025-12-31T23:59:59.999Z', '2026-11-21T23:59:59.999Z'));
    expect(await found('le2026-11-22')).toEqual(
      idsAt('2025-12-31T23:59:59.999Z', '2026-11-21T23:59:59.999Z', '2026-11-22T00:00:00.000Z', '2026-11-22T12:00:00.000Z', '2026-11-22T23:59:59.999Z'),
    );
    expect(await found('ne2026')).toEqual(idsAt('2025-12-31T23:59:59.999Z', '2027-01-01T00:00:00.000Z'));
  });

  it('answers _elements with subsetted Tasks and _format=json as without it', async () => {
    const viewer: Viewer = { role: 'referrer', partyId: 'edge' };
    const bundle = await searchOk({ _elements: 'status,owner', _format: 'json', _count: '1' }, viewer);
    const resource = bundle.entry![0]!.resource as Task;

    expect(Object.keys(resource)).toEqual(['resourceType', 'id', 'meta', 'status', 'intent', 'owner']);
    expect(resource.meta!.tag).toEqual([{ system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED', display: 'subsetted' }]);
    expect(bundle.link!.find((link) => link.relation === 'next')!.url).toContain('_elements=status%2Cowner&_format=json&_count=1&_offset=1');
  });

  it('answers a page past the last one with no entries, the right total and no next link', async () => {
    const queries: Query[] = [{ 'based-on': identifierOf('a', 99) }, { owner: CLINICS[2]! }];
    for (const query of queries) {
      const viewer: Viewer = { role: 'referrer', partyId: 'a' };
      const total = expected(query, viewer).length;
      const bundle = await searchOk({ ...query, _offset: String(total + 3) }, viewer);
      expect(bundle).toMatchObject({ total });
      expect(bundle.entry).toBeUndefined();
      expect(bundle.link).toEqual([{ relation: 'self', url: expect.stringContaining(`_offset=${total + 3}`) }]);
    }
  });

  it('matches the documented rules for every combination of parameters', async () => {
    const viewers: Viewer[] = [
      { role: 'referrer', partyId: 'a' },
      { role: 'referrer', partyId: 'a2' },
      { role: 'referrer', partyId: 'nobody' },
      { role: 'clinic', ikNumbers: [CLINICS[4]!] },
      { role: 'clinic', ikNumbers: [CLINICS[1]!, CLINICS[5]!] },
    ];
    for (let round = 0; round < 150; round++) {
      const query: Query = {};
      const identifier = pick(stored).identifier;
      if (next() < 0.3) query['based-on'] = identifier;
      else if (next() < 0.15) query['based-on:identifier'] = `${URI_IDENTIFIER_SYSTEM}|${identifier}`;
      if (next() < 0.3) query.owner = pick(CLINICS);
      if (next() < 0.3) query.status = [...new Set([pick(STATUSES), pick(STATUSES)])].join(',');
      if (next() < 0.3) query['business-status'] = pick(BUSINESS_STATUSES.slice(1))!;
      if (next() < 0.5) query._lastUpdated = Array.from({ length: 1 + Math.floor(next() * 2) }, () => `${pick(DATE_PREFIXES)}${pick(DATE_VALUES)}`);
      if (next() < 0.2) query._total = 'none';
      const viewer = pick(viewers);
      const count = 1 + Math.floor(next() * 6);
      const offset = Math.floor(next() * 8);
      const bundle = await searchOk({ ...query, _count: String(count), ...(offset ? { _offset: String(offset) } : {}) }, viewer);

      const all = expected(query, viewer);
      const context = JSON.stringify({ round, query, viewer, count, offset });
      expect({ context, total: bundle.total, ids: (bundle.entry ?? []).map((entry) => entry.resource!.id) }).toEqual({
        context,
        total: query._total === 'none' ? undefined : all.length,
        ids: all.slice(offset, offset + count).map((task) => task.id),
      });
      expect(bundle.link!.some((link) => link.relation === 'next')).toBe(offset + count < all.length);
    }
  });

  it('answers each Task in the documented shape with its fullUrl', async () => {
    const task = stored.find((candidate) => candidate.businessStatus !== null)!;
    const bundle = await searchOk({ 'based-on': task.identifier, owner: task.clinicIk }, { role: 'referrer', partyId: task.referrerPartyId });
    const entry = bundle.entry![0] as BundleEntry<Task>;

    expect(entry).toEqual({
      fullUrl: `${LINKS.base}${LINKS.path}/${task.id}`,
      search: { mode: 'match' },
      resource: {
        resourceType: 'Task',
        id: task.id,
        meta: { lastUpdated: task.lastModified },
        status: task.status,
        intent: 'order',
        basedOn: [{ identifier: { system: URI_IDENTIFIER_SYSTEM, value: task.identifier } }],
        owner: { identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: task.clinicIk } },
        requester: { identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '260000001' } },
        authoredOn: '2026-02-28T00:00:00.000Z',
        lastModified: task.lastModified,
        businessStatus: {
          coding: [
            { system: 'https://bedrequest.example.org/fhir/CodeSystem/admission-response-status', code: task.businessStatus, display: expect.any(String) },
          ],
        },
        note: [{ text: `answer ${task.businessStatus}`, time: task.lastModified }],
      },
    });
  });

  it('reads one Task only for its referrer or its clinic', async () => {
    const task = stored[0]!;
    expect(await tasks.read(task.id, {}, { viewer: { role: 'referrer', partyId: task.referrerPartyId }, user: 'reader' })).toMatchObject({
      ok: true,
      task: { id: task.id },
    });
    expect(await tasks.read(task.id, {}, { viewer: { role: 'clinic', ikNumbers: [task.clinicIk] }, user: 'reader' })).toMatchObject({
      ok: true,
      task: { id: task.id },
    });
    expect(await tasks.read(task.id, {}, { viewer: { role: 'referrer', partyId: 'nobody' }, user: 'reader' })).toEqual({ ok: true, task: undefined });
    expect(await tasks.read(task.id, {}, { viewer: { role: 'clinic', ikNumbers: CLINICS.filter((ik) => ik !== task.clinicIk) }, user: 'reader' })).toEqual({
      ok: true,
      task: undefined,
    });
  });
});
