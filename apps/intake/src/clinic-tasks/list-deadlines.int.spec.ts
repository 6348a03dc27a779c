import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { Pool } from 'pg';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import type { Caller } from '../access';
import { AuditTrail, AuditTrailRepository } from '../audit';
import { OverdueSweep } from '../deadlines';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase } from '../persistence';
import { AdmissionRequestRepository, IntakeService, type IntakeCommand } from '../requests';
import { admissionCommand, testSealedFields } from '../testing';
import { ClinicTaskListQuery } from './clinic-task-list-query';
import { ClinicTaskReadsRepository } from './clinic-task-reads.repository';
import { ClinicTaskReadsService } from './clinic-task-reads.service';
import { SQL_ORDERS } from './clinic-task-order';

const env = testEnvironment();
const systems = fhirSystems();
const A = '510000001';
const referrer = { partyId: 'referrer-list-deadlines', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const clinic: ClinicRecord = { ik: A, name: A, departments: [{ code: '2300', specialty: 'x', display: 'x' }] };
const caller: Caller & { viewer: { role: 'clinic'; ikNumbers: string[] } } = {
  viewer: { role: 'clinic', ikNumbers: [A] },
  user: 'user-list',
  address: '198.51.100.2',
};

function submission(identifier: string, deadline: string): IntakeCommand {
  return admissionCommand({ requestIdentifier: identifier, performerIks: [A] }, referrer, deadline);
}

/** The clinic's list with each Task's deadline and overdue mark, sorted by deadline both ways and paged by offset and by cursor (docs/api.md, "Answer deadlines"). */
describe('the clinic list: deadlines and overdue Tasks', () => {
  const schema = uniqueName('intake_list_deadline');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let reads: ClinicTaskReadsService;
  const taskOf: Record<string, string> = {};
  const deadlineOf: Record<string, Date | undefined> = {};

  const list = async (query: Record<string, string>) => reads.list(caller, ClinicTaskListQuery.parse(query));
  const names = (items: { id: string }[]) => items.map((item) => Object.keys(taskOf).find((name) => taskOf[name] === item.id));

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const fields = await testSealedFields(prisma, schema);
    const service = new IntakeService(
      new AdmissionRequestRepository(prismaRunner(prisma), schema, fields),
      { lookup: async () => new Map([[A, clinic]]) },
      systems,
    );
    reads = new ClinicTaskReadsService(
      new ClinicTaskReadsRepository(prisma, schema, fields),
      systems,
      new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema)),
    );
    const now = Date.now();
    // soon passes during the test; none stands for a request stored before deadlines existed.
    const deadlines = { later: now + 3 * 86_400_000, soon: now + 1000, middle: now + 2 * 86_400_000, latest: now + 5 * 86_400_000, none: now + 86_400_000 };
    for (const [name, at] of Object.entries(deadlines)) {
      const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
      await service.handle([submission(identifier, new Date(at).toISOString())]);
      const found = await pool.query(
        `SELECT t.id FROM "${schema}".clinic_task t JOIN "${schema}".admission_request r ON r.id = t.request_id WHERE r.identifier = $1`,
        [identifier],
      );
      taskOf[name] = (found.rows[0] as { id: string }).id;
      deadlineOf[name] = new Date(at);
    }
    await pool.query(`UPDATE "${schema}".clinic_task SET answer_deadline = NULL WHERE id = $1`, [taskOf.none]);
    deadlineOf.none = undefined;
    await new Promise((resolve) => setTimeout(resolve, deadlines.soon - Date.now() + 100));
    await new OverdueSweep(prisma, schema, fields, systems, { logger: pino({ level: 'silent' }), intervalMs: 1000 }).run();
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it('gives each item its deadline and, for the overdue one, since when', async () => {
    const { items } = await list({});
    const byName = Object.fromEntries(items.map((item) => [names([item])[0], item]));
    expect(byName.later?.deadline).toBe(deadlineOf.later?.toISOString());
    expect(byName.none).not.toHaveProperty('deadline');
    expect(byName.soon?.overdueSince).toEqual(expect.any(String));
    expect(items.filter((item) => item.overdueSince).map((item) => item.id)).toEqual([taskOf.soon]);
  });

  it('sorts by deadline, earliest or latest first, Tasks without one last both ways', async () => {
    expect(names((await list({ _sort: 'deadline' })).items)).toEqual(['soon', 'middle', 'later', 'latest', 'none']);
    expect(names((await list({ _sort: '-deadline' })).items)).toEqual(['latest', 'later', 'middle', 'soon', 'none']);
  });

  it.each(['deadline', '-deadline'] as const)('pages _sort=%s by offset and by cursor alike, each Task once', async (sort) => {
    const whole = names((await list({ _sort: sort })).items);
    const byOffset: (string | undefined)[] = [];
    let query: Record<string, string> | undefined = { _sort: sort, _count: '2' };
    while (query) {
      const page = await list(query);
      byOffset.push(...names(page.items));
      query = page.next ? Object.fromEntries(new URLSearchParams(page.next.slice(1))) : undefined;
    }
    expect(byOffset).toEqual(whole);

    // Past _offset's bound `next` carries a cursor: the same order, resumed after each page's last row.
    const order = SQL_ORDERS[sort];
    const byCursor: (string | undefined)[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await list({ _sort: sort, _count: '2', ...(cursor ? { _cursor: cursor } : {}) });
      byCursor.push(...names(page.items));
      const last = page.items.at(-1);
      if (!last || !page.next) break;
      const deadline = last.deadline ? new Date(last.deadline) : null;
      cursor = order.keys.encode(order.keyOf({ id: last.id, answer_deadline: deadline } as Parameters<typeof order.keyOf>[0]));
    }
    expect(byCursor).toEqual(whole);
  });
});
