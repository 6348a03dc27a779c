import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import type { Caller } from '../access';
import { AuditTrailRepository, AuditTrail } from '../audit';
import { openIntakeDatabase, type IntakeDatabase, prismaRunner } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { admissionCommand, automaticAnswerCommand, clinicAnswerCommand, testSealedFields } from '../testing';
import { ClinicTaskListQuery } from './clinic-task-list-query';
import { ClinicTaskReadsRepository } from './clinic-task-reads.repository';
import { ClinicTaskReadsService } from './clinic-task-reads.service';

const env = testEnvironment();
const A = '510000001';
const referrer = { partyId: 'referrer-list', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const clinic: ClinicRecord = { ik: A, name: A, departments: [{ code: '2300', specialty: 'x', display: 'x' }] };
const caller: Caller & { viewer: { role: 'clinic'; ikNumbers: string[] } } = {
  viewer: { role: 'clinic', ikNumbers: [A] },
  user: 'user-list',
  address: '198.51.100.2',
};

/**
 * The clinic's list sorted by the desired admission date, by arrival and by state, searched by
 * request number, IK and text, and an automatic answer marked as such (docs/api.md, "Clinic API").
 */
describe('the clinic list: order, search, automatic answers', () => {
  const schema = uniqueName('intake_list');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let service: IntakeService;
  let reads: ClinicTaskReadsService;
  // Arrival order: first, second, third; desired dates: third, first, second.
  const dates = { first: '2026-12-10', second: '2026-12-20', third: '2026-12-01' } as const;
  const taskOf: Record<string, string> = {};

  const list = async (query: Record<string, string>) => reads.list(caller, ClinicTaskListQuery.parse(query));
  const names = (items: { id: string }[]) => items.map((item) => Object.keys(taskOf).find((name) => taskOf[name] === item.id));

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const fields = await testSealedFields(prisma, schema);
    service = new IntakeService(
      new AdmissionRequestRepository(prismaRunner(prisma), schema, fields),
      { lookup: async () => new Map([[A, clinic]]) },
      fhirSystems(),
    );
    reads = new ClinicTaskReadsService(
      new ClinicTaskReadsRepository(prisma, schema, fields),
      fhirSystems(),
      new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema)),
    );
    for (const name of ['first', 'second', 'third'] as const) {
      const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
      await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A], occurrenceDate: dates[name] }, referrer)]);
      const found = await pool.query(
        `SELECT t.id FROM "${schema}".clinic_task t JOIN "${schema}".admission_request r ON r.id = t.request_id WHERE r.identifier = $1`,
        [identifier],
      );
      taskOf[name] = (found.rows[0] as { id: string }).id;
    }
    // first: answered by the service; second: by a person without a note, after an automatic answer.
    await service.handle([
      automaticAnswerCommand({ taskId: taskOf.first!, clinicIk: A, businessStatus: 'accepted', note: 'Automatische Zusage', answersVersion: 1 }),
    ]);
    await service.handle([
      automaticAnswerCommand({ taskId: taskOf.second!, clinicIk: A, businessStatus: 'accepted', note: 'Automatische Zusage', answersVersion: 1 }),
    ]);
    await service.handle([clinicAnswerCommand({ taskId: taskOf.second!, clinicIk: A, businessStatus: 'declined' })]);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it('sorts by the desired admission date either way, a page at a time by _offset', async () => {
    expect(names((await list({ _sort: 'occurrence' })).items)).toEqual(['third', 'first', 'second']);
    expect(names((await list({ _sort: '-occurrence' })).items)).toEqual(['second', 'first', 'third']);
    const page = await list({ _sort: 'occurrence', _count: '2' });
    expect([names(page.items), page.next]).toEqual([['third', 'first'], '?_sort=occurrence&_count=2&_offset=2']);
    expect(names((await list({ _sort: 'occurrence', _count: '2', _offset: '2' })).items)).toEqual(['second']);
  });

  it('sorts by arrival and by state, and pages on by a cursor of that order', async () => {
    expect(names((await list({ _sort: 'authored' })).items)).toEqual(['first', 'second', 'third']);
    expect(names((await list({ _sort: '-authored' })).items)).toEqual(['third', 'second', 'first']);
    // new (third), then answered, the most recently changed first (second's answer came last).
    expect(names((await list({ _sort: 'status' })).items)).toEqual(['third', 'second', 'first']);
    // Past MAX_OFFSET next carries a cursor of the order: start from the cursor after the first row.
    const seen: string[] = [];
    const firstPage = await list({ _sort: 'authored', _count: '1' });
    seen.push(...(names(firstPage.items) as string[]));
    const { SQL_ORDERS } = await import('./clinic-task-order');
    const cursorAfter = (id: string, authored: string) => SQL_ORDERS.authored.keys.encode(['authored', authored, id]);
    let query: Record<string, string> | undefined = {
      _sort: 'authored',
      _count: '1',
      _cursor: cursorAfter(firstPage.items[0]!.id, firstPage.items[0]!.authoredOn),
    };
    while (query) {
      const page = await list(query);
      seen.push(...(names(page.items) as string[]));
      query = page.next ? Object.fromEntries(new URLSearchParams(page.next)) : undefined;
    }
    expect(seen).toEqual(['first', 'second', 'third']);
    expect(() => ClinicTaskListQuery.parse({ _sort: '-authored', _cursor: cursorAfter(taskOf.first!, '2026-11-01T10:00:00.000Z') })).toThrow(/_cursor/);
  });

  it('finds exactly the request of a request number, with or without the hyphen', async () => {
    const head = taskOf.second!.replace(/-/g, '').slice(0, 8).toUpperCase();
    for (const q of [`${head.slice(0, 4)}-${head.slice(4)}`, head.toLowerCase()]) {
      const found = await list({ q });
      expect([names(found.items), found.total]).toEqual([['second'], 1]);
    }
  });

  it('finds by the referrer IK and name and by the diagnosis code or text, and records a text search without its text', async () => {
    expect((await list({ q: FIXTURE_REQUESTER_IK })).total).toBe(3);
    expect((await list({ q: '999999999' })).total).toBe(0);
    expect((await list({ q: 'S72.0', _sort: 'occurrence' })).items.map((item) => item.mainDiagnosis?.code)).toEqual(['S72.01', 'S72.01', 'S72.01']);
    expect((await list({ q: 'keine solche diagnose' })).items).toEqual([]);
    const recorded = await pool.query(
      `SELECT resource::text AS text FROM "${schema}".audit_events WHERE resource::text LIKE '%S72%' OR resource::text LIKE '%keine solche%'`,
    );
    expect(recorded.rows).toEqual([]);
  });

  it('marks the Task whose latest answer was automatic', async () => {
    const { items } = await list({});
    const marked = Object.fromEntries(items.map((item) => [names([item])[0], item.answeredAutomatically ?? false]));
    expect(marked).toEqual({ first: true, second: false, third: false });
  });

  it('refuses a malformed search or order', () => {
    for (const query of [{ q: '' }, { q: 'x'.repeat(101) }, { q: 'a\u0007b' }, { _sort: 'patient' }, { q: 'S72', _cursor: 'abc' }]) {
      expect(ClinicTaskListQuery.safeParse(query).success).toBe(false);
    }
  });
});
