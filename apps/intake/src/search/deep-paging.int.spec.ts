import type { Bundle } from '@medplum/fhirtypes';
import { Pool } from 'pg';
import { fhirSystems } from '@bedrequest/fhir-model';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import type { Caller } from '../access';
import { AuditTrail, AuditTrailRepository, entriesOf } from '../audit';
import { ClinicTaskListQuery, ClinicTaskReadsRepository, ClinicTaskReadsService } from '../clinic-tasks';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase } from '../persistence';
import { testSealedFields } from '../testing';
import { TaskReadRepository, TaskReadService } from '../tasks';

const env = testEnvironment();
/** Past the bound of `_offset` (10,000, docs/api.md "Paging") by a page or more of every size used here. */
const ROWS = 11_000;
const REFERRER = 'deep-referrer';
const CLINIC = '518100001';
const IDENTIFIER = 'https://hospital.example/fhir/ServiceRequest/deep';
const LINKS = { base: 'https://gateway.example', path: '/api/v2/fhir/Task' };
const referrer: Caller = { viewer: { role: 'referrer', partyId: REFERRER }, user: REFERRER };
const clinic: Caller & { viewer: { role: 'clinic'; ikNumbers: string[] } } = { viewer: { role: 'clinic', ikNumbers: [CLINIC] }, user: 'clinic-user' };

type Query = Record<string, string>;
const queryOf = (url: string): Query => Object.fromEntries(new URL(url, 'https://gateway.example').searchParams);

/**
 * Deep pages of the Task search, the AuditEvent search and the clinic's list against the real
 * PostgreSQL, each over more rows than `_offset` may skip: following `next` from the first page
 * reaches every row once, in order, and never a 400, because the links switch from `_offset` to
 * `_cursor` before the bound; an `_offset` past the bound is refused, naming what to do instead.
 */
describe('paging past the bound of _offset', () => {
  const schema = uniqueName('intake_paging');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let tasks: TaskReadService;
  let audit: AuditTrail;
  let lists: ClinicTaskReadsService;
  const sql = async <T>(text: string, values: unknown[] = []) => (await pool.query(text, values)).rows as T[];

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 4 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 2 });
    const fields = await testSealedFields(prisma, schema);
    audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema));
    tasks = new TaskReadService(new TaskReadRepository(prisma, schema, fields), fhirSystems(), audit);
    lists = new ClinicTaskReadsService(new ClinicTaskReadsRepository(prisma, schema, fields), fhirSystems(), audit);
    const t = (name: string) => `"${schema}".${name}`;
    // One request of the referrer naming ROWS clinics; few distinct instants, so the id decides most of the order.
    await sql(
      `INSERT INTO ${t('admission_request')} (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
       VALUES (gen_random_uuid(), $1, $2, '261800001', 'active', 'proposal', 1, 'hash', now())`,
      [IDENTIFIER, REFERRER],
    );
    await sql(
      `INSERT INTO ${t('clinic_task')} (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified)
       SELECT gen_random_uuid(), r.id, r.referrer_party_id, lpad((519000000 + n)::text, 9, '0'), 'requested', 1, now(), timestamp with time zone '2026-03-01T08:00:00Z' + (n % 7) * interval '1 millisecond'
         FROM ${t('admission_request')} r, generate_series(1, $1::int) n WHERE r.identifier = $2`,
      [ROWS, IDENTIFIER],
    );
    // ROWS erased requests of another referrer, each with one Task of CLINIC: its list, open Tasks first.
    await sql(
      `WITH requests AS (
         INSERT INTO ${t('admission_request')} (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
         SELECT gen_random_uuid(), 'https://other.example/fhir/ServiceRequest/' || n, 'other-referrer', '261800002', 'revoked', 'proposal', 1, 'hash', now()
           FROM generate_series(1, $1::int) n RETURNING id, identifier),
       erased AS (INSERT INTO ${t('request_erasure')} (request_id, erased_at, reason, versions, documents) SELECT id, now(), 'retention', 1, 0 FROM requests)
       INSERT INTO ${t('clinic_task')} (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified)
       SELECT gen_random_uuid(), id, 'other-referrer', $2, CASE WHEN n % 3 = 0 THEN 'requested' ELSE 'cancelled' END, 1, now(),
              timestamp with time zone '2026-03-01T08:00:00Z' + (n % 5) * interval '1 millisecond'
         FROM (SELECT id, split_part(identifier, '/', 6)::int AS n FROM requests) numbered`,
      [ROWS, CLINIC],
    );
    // ROWS audit entries of CLINIC's reads of the referrer's request, appended as the trail does.
    const repository = new AuditTrailRepository(prismaRunner(prisma), schema);
    for (let start = 0; start < ROWS; start += 2_000) {
      const records = Array.from({ length: Math.min(2_000, ROWS - start) }, () => ({
        interaction: 'read' as const,
        agent: { kind: 'clinic' as const, user: 'clinic-user', ik: CLINIC },
        request: { identifier: IDENTIFIER, ownerPartyId: REFERRER },
        source: 'intake',
      }));
      await repository.appendEntries(entriesOf(records, new Date()));
    }
  }, 120_000);

  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  /** Follows `next` from `query`: the ids in the order found, and how each page's position was given. */
  async function follow(search: (query: Query) => Promise<Bundle>, query: Query) {
    const ids: string[] = [];
    const positions: string[] = [];
    for (let page: Query | undefined = query; page;) {
      const bundle = await search(page);
      ids.push(...(bundle.entry ?? []).map((entry) => entry.resource!.id!));
      positions.push(page._cursor ? 'cursor' : `offset ${page._offset ?? 0}`);
      const next = bundle.link?.find((link) => link.relation === 'next')?.url;
      page = next ? queryOf(next) : undefined;
    }
    return { ids, positions };
  }
  const taskSearch = async (query: Query) => {
    const result = await tasks.search(query, referrer, LINKS);
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.issues)}`);
    return result.bundle;
  };
  const auditSearch = async (query: Query) => {
    const result = await audit.search(query, clinic.viewer, { ...LINKS, path: '/api/v2/fhir/AuditEvent' });
    if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.issues)}`);
    return result.bundle;
  };
  /** Pages by offset up to the bound (21 pages of 500), then by cursor. */
  const expectedPositions = [...Array.from({ length: 21 }, (_, n) => `offset ${n * 500}`), 'cursor'];

  it.each([
    ['every Task of the referrer', {}],
    ["one request's Tasks", { 'based-on': IDENTIFIER }],
    ['without a total', { _total: 'none' }],
  ])('follows the Task search to its end: %s, each once, in lastModified and id order', async (_name, query: Query) => {
    const order = await sql<{ id: string }>(`SELECT id::text FROM "${schema}".clinic_task WHERE clinic_ik <> $1 ORDER BY last_modified, id`, [CLINIC]);
    const { ids, positions } = await follow(taskSearch, { ...query, _count: '500' });
    expect(positions).toEqual(expectedPositions);
    expect(ids).toEqual(order.map((row) => row.id));
  });

  it('answers a Task search _offset past 10000 with 400 naming _lastUpdated and the next link, and takes 10000 itself', async () => {
    expect(await tasks.search({ _offset: '10001' }, referrer, LINKS)).toEqual({
      ok: false,
      status: 400,
      issues: [
        {
          code: 'invalid',
          expression: '_offset',
          diagnostics: '_offset: at most 10000: follow the next link, which pages on by _cursor from there, or narrow the search with _lastUpdated',
        },
      ],
    });
    expect(((await taskSearch({ _offset: '10000', _count: '5' })).entry ?? []).length).toBe(5);
    for (const query of [{ _cursor: 'not-a-cursor' }, { _cursor: Buffer.from('["2026-03-01T08:00:00.000Z"]').toString('base64url') }]) {
      expect(await tasks.search(query, referrer, LINKS)).toMatchObject({ ok: false, status: 400, issues: [{ expression: '_cursor' }] });
    }
  });

  it('follows the AuditEvent search to its end in the chain order, counting only with _total=accurate', async () => {
    const order = await sql<{ id: string }>(`SELECT id::text FROM "${schema}".audit_events WHERE agent_ik = $1 ORDER BY recorded, day, seq`, [CLINIC]);
    const { ids, positions } = await follow(auditSearch, { _count: '500' });
    expect(positions).toEqual(expectedPositions);
    expect(ids).toEqual(order.map((row) => row.id));
    expect(await auditSearch({ _count: '1' })).not.toHaveProperty('total');
    expect(await auditSearch({ _count: '1', _total: 'accurate' })).toMatchObject({ total: order.length });
    expect(await audit.search({ _offset: '10001' }, clinic.viewer, LINKS)).toMatchObject({
      ok: false,
      status: 400,
      issues: [{ expression: '_offset', diagnostics: expect.stringMatching(/next link.*date$/) }],
    });
  });

  it("follows the clinic's list to its end through next, open Tasks first, then the most recently changed", async () => {
    const order = await sql<{ id: string }>(
      `SELECT id::text FROM "${schema}".clinic_task WHERE clinic_ik = $1 ORDER BY (status = 'requested') DESC, last_modified DESC, id DESC`,
      [CLINIC],
    );
    const ids: string[] = [];
    const positions: string[] = [];
    for (let next: string | undefined = '?_count=999'; next;) {
      const query = ClinicTaskListQuery.parse(queryOf(next));
      positions.push(query._cursor ? 'cursor' : `offset ${query._offset}`);
      const page = await lists.list(clinic, query);
      expect(page.total).toBe(ROWS);
      ids.push(...page.items.map((item) => item.id));
      next = page.next;
    }
    expect(positions).toEqual([...Array.from({ length: 11 }, (_, n) => `offset ${n * 999}`), 'cursor']);
    expect(ids).toEqual(order.map((row) => row.id));
    expect(ClinicTaskListQuery.safeParse({ _offset: '10001' }).error?.issues[0]?.message).toMatch(
      /^_offset: a whole number from 0 to 10000; past it, follow next/,
    );
  });
});
