import { Pool } from 'pg';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { Prisma } from '../generated/prisma/client';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { admissionCommand, automaticAnswerCommand, clinicAnswerCommand, testSealedFields } from '../testing';
import { AnswerStatisticsRepository } from './answer-statistics.repository';
import { AnswerStatisticsService } from './answer-statistics.service';

const env = testEnvironment();
const DAY = 86_400_000;
const [A, B, C, D, E] = ['510000011', '510000012', '510000013', '510000014', '510000015'];

interface Seeded {
  clinicIk: string;
  departmentCode: string;
  daysAgo: number;
  seconds: number;
  accepted: boolean;
}

/** Rows in the window: the figures below are computed by hand from these (percentile_cont: linear between ranks). */
const inWindow: Seeded[] = [
  // A, 2300: sorted 600 1200 1800 3600 7200 86400; median at rank (6-1)·0.5 = 2.5 → (1800+3600)/2 = 2700;
  // p90 at rank 4.5 → 7200 + 0.5·(86400-7200) = 46800; accepted 3 of 6 = 0.5.
  ...[600, 1200, 1800, 3600, 7200, 86400].map((seconds, i) => ({ clinicIk: A, departmentCode: '2300', daysAgo: 1 + i * 17, seconds, accepted: i % 2 === 0 })),
  // B, 2300: 300 … 1500; median rank 2 → 900; p90 rank 3.6 → 1200 + 0.6·300 = 1380; all accepted.
  ...[1500, 300, 1200, 600, 900].map((seconds, i) => ({ clinicIk: B, departmentCode: '2300', daysAgo: 2 + i * 20, seconds, accepted: true })),
  // B, 1500: 100 … 500, none accepted; median 300, p90 rank 3.6 → 400 + 0.6·100 = 460.
  ...[100, 200, 300, 400, 500].map((seconds, i) => ({ clinicIk: B, departmentCode: '1500', daysAgo: 3 + i, seconds, accepted: false })),
  // C, 2300: 60 … 420; median rank 3 → 240; p90 rank 5.4 → 360 + 0.4·60 = 384; accepted 2 of 7 = 0.286.
  ...[60, 120, 180, 240, 300, 360, 420].map((seconds, i) => ({ clinicIk: C, departmentCode: '2300', daysAgo: 4 + i * 12, seconds, accepted: i < 2 })),
  // D, 2300: four answers, one short of figures.
  ...[10, 20, 30, 40].map((seconds, i) => ({ clinicIk: D, departmentCode: '2300', daysAgo: 5 + i, seconds, accepted: true })),
  // E, 2300: 1000 … 5000; median 3000; p90 rank 3.6 → 4000 + 0.6·1000 = 4600; none accepted. One at 89.9 days still counts.
  ...[1000, 2000, 3000, 4000, 5000].map((seconds, i) => ({ clinicIk: E, departmentCode: '2300', daysAgo: i === 4 ? 89.9 : 6 + i, seconds, accepted: false })),
];

/** Older than 90 days: each would change the figures it fell into. */
const outside: Seeded[] = [
  { clinicIk: A, departmentCode: '2300', daysAgo: 90.1, seconds: 999_999, accepted: true },
  { clinicIk: D, departmentCode: '2300', daysAgo: 120, seconds: 5, accepted: true },
];

describe('answer statistics: the figures of the last 90 days', () => {
  const schema = uniqueName('intake_answer_stats');
  const now = new Date();
  let prisma: IntakeDatabase;
  let pool: Pool;
  let repository: AnswerStatisticsRepository;
  let service: AnswerStatisticsService;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const insert = (rows: Seeded[]) =>
      pool.query(
        `INSERT INTO "${schema}".answer_statistic (task_id, clinic_ik, department_code, answered_at, seconds, accepted)
         SELECT gen_random_uuid(), x.clinic_ik, x.department_code, $2::timestamptz - x.days_ago * interval '1 day', x.seconds, x.accepted
           FROM jsonb_to_recordset($1::jsonb) AS x(clinic_ik text, department_code text, days_ago float8, seconds integer, accepted boolean)`,
        [
          JSON.stringify(
            rows.map((row) => ({
              clinic_ik: row.clinicIk,
              department_code: row.departmentCode,
              days_ago: row.daysAgo,
              seconds: row.seconds,
              accepted: row.accepted,
            })),
          ),
          now,
        ],
      );
    await insert([...inWindow, ...outside]);
    // Two years of older answers (91-820 days ago), as the history grows: the window is a small part of the index.
    await pool.query(
      `INSERT INTO "${schema}".answer_statistic (task_id, clinic_ik, department_code, answered_at, seconds, accepted)
       SELECT gen_random_uuid(), (ARRAY[$2, $3, $4])[1 + n % 3], '2300', $1::timestamptz - (91 + n % 730) * interval '1 day', 1 + n, n % 2 = 0
         FROM generate_series(1, 20000) AS n`,
      [now, A, B, C],
    );
    // As autovacuum leaves a table: statistics gathered and the visibility map set, which an Index Only Scan needs to skip the heap.
    await pool.query(`VACUUM (ANALYZE) "${schema}".answer_statistic`);
    repository = new AnswerStatisticsRepository(prisma, schema);
    service = new AnswerStatisticsService(repository, () => now);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it("gives a referrer every clinic's figures, by hand from the seeded answers, and the count alone below five answers", async () => {
    const list = await service.forReferrer();
    expect(list).toMatchObject({ windowDays: 90, minimumAnswers: 5, since: new Date(now.getTime() - 90 * DAY).toISOString() });
    expect(list.items).toEqual([
      { clinicIk: B, departmentCode: '1500', answers: 5, medianSeconds: 300, p90Seconds: 460, acceptanceShare: 0 },
      { clinicIk: A, departmentCode: '2300', answers: 6, medianSeconds: 2700, p90Seconds: 46800, acceptanceShare: 0.5 },
      { clinicIk: B, departmentCode: '2300', answers: 5, medianSeconds: 900, p90Seconds: 1380, acceptanceShare: 1 },
      { clinicIk: C, departmentCode: '2300', answers: 7, medianSeconds: 240, p90Seconds: 384, acceptanceShare: 0.286 },
      { clinicIk: D, departmentCode: '2300', answers: 4 },
      { clinicIk: E, departmentCode: '2300', answers: 5, medianSeconds: 3000, p90Seconds: 4600, acceptanceShare: 0 },
    ]);
  });

  it('gives one department only when asked', async () => {
    expect((await service.forReferrer('1500')).items.map((item) => [item.clinicIk, item.departmentCode])).toEqual([[B, '1500']]);
  });

  it("gives a clinic its own figures beside its peers' median, and no other clinic's IK or figures", async () => {
    const own = await service.forClinic([A]);
    // Peers of A in 2300 with enough answers: B, C, E (D has four). Medians 900, 240, 3000 → 900;
    // p90s 1380, 384, 4600 → 1380; shares 1, 0.286, 0 → 0.286.
    expect(own).toMatchObject({ windowDays: 90, minimumAnswers: 5, minimumPeers: 3 });
    expect(own.items).toEqual([
      {
        clinicIk: A,
        departmentCode: '2300',
        own: { answers: 6, medianSeconds: 2700, p90Seconds: 46800, acceptanceShare: 0.5 },
        peers: { clinics: 3, medianSeconds: 900, p90Seconds: 1380, acceptanceShare: 0.286 },
      },
    ]);
    const text = JSON.stringify(own);
    for (const other of [B, C, D, E]) expect(text).not.toContain(other);
  });

  it("gives no peers' figures with fewer than three peers: they would be those clinics' own", async () => {
    const own = await service.forClinic([B]);
    expect(own.items.find((item) => item.departmentCode === '1500')).toEqual({
      clinicIk: B,
      departmentCode: '1500',
      own: { answers: 5, medianSeconds: 300, p90Seconds: 460, acceptanceShare: 0 },
      peers: { clinics: 0 },
    });
  });

  it.each([undefined, '2300'])('reads the window from the index alone (department %s): an Index Only Scan without heap fetches', async (department) => {
    const plan = await prisma.$queryRaw<{ 'QUERY PLAN': unknown }[]>(
      Prisma.sql`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${repository.figuresSql(new Date(now.getTime() - 90 * DAY), department)}`,
    );
    const scans = scansOf((plan[0]?.['QUERY PLAN'] as { Plan: PlanNode }[])[0]?.Plan);
    expect(scans.map((scan) => [scan['Node Type'], scan['Index Name']])).toEqual([['Index Only Scan', 'answer_statistic_window_idx']]);
    expect(scans[0]?.['Heap Fetches']).toBe(0);
    expect(scans[0]?.['Actual Rows']).toBe(department ? 27 : 32);
  });
});

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Heap Fetches'?: number;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** Every scan node of a plan. */
function scansOf(node: PlanNode | undefined): PlanNode[] {
  if (!node) return [];
  const own = node['Node Type'].endsWith('Scan') ? [node] : [];
  return [...own, ...(node.Plans ?? []).flatMap(scansOf)];
}

describe('answer statistics: the row of a first answer', () => {
  const schema = uniqueName('intake_answer_rows');
  const W = '510000021';
  const clinic: ClinicRecord = { ik: W, name: W, departments: [{ code: '2300', specialty: 'x', display: 'x' }] };
  const referrer = { partyId: 'referrer-answer-stats', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
  let prisma: IntakeDatabase;
  let pool: Pool;
  let intake: IntakeService;

  const submit = async (name: string) => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/answer-stats-${name}`;
    await intake.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [W] }, referrer)]);
    const found = await pool.query<{ id: string; authored_on: Date }>(
      `SELECT t.id, t.authored_on FROM "${schema}".clinic_task t JOIN "${schema}".admission_request r ON r.id = t.request_id WHERE r.identifier = $1`,
      [identifier],
    );
    return found.rows[0] as { id: string; authored_on: Date };
  };
  const rowsOf = async (taskId: string) =>
    (await pool.query(`SELECT clinic_ik, department_code, seconds, accepted, answered_at FROM "${schema}".answer_statistic WHERE task_id = $1`, [taskId])).rows;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const fields = await testSealedFields(prisma, schema);
    intake = new IntakeService(
      new AdmissionRequestRepository(prismaRunner(prisma), schema, fields),
      { lookup: async () => new Map([[W, clinic]]) },
      fhirSystems(),
    );
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it("writes one row with the clinic's first answer, in its transaction, and none for later answers", async () => {
    const task = await submit('first');
    const before = Date.now();
    await intake.handle([clinicAnswerCommand({ taskId: task.id, clinicIk: W, businessStatus: 'query' })]);
    const [row] = await rowsOf(task.id);
    expect(row).toMatchObject({ clinic_ik: W, department_code: '2300', accepted: false });
    const answeredAt = (row as { answered_at: Date }).answered_at;
    expect(answeredAt.getTime()).toBeGreaterThanOrEqual(before - 5);
    expect((row as { seconds: number }).seconds).toBe(Math.round((answeredAt.getTime() - task.authored_on.getTime()) / 1000));

    // Its acceptance later is the same Task's second answer: the first one's row stays as it was.
    await intake.handle([clinicAnswerCommand({ taskId: task.id, clinicIk: W, businessStatus: 'accepted' })]);
    expect(await rowsOf(task.id)).toEqual([row]);
  });

  it('counts an acceptance as one, and writes nothing for a Task the service answered first', async () => {
    const accepted = await submit('accepted');
    await intake.handle([clinicAnswerCommand({ taskId: accepted.id, clinicIk: W, businessStatus: 'accepted' })]);
    expect(await rowsOf(accepted.id)).toEqual([expect.objectContaining({ accepted: true })]);

    const automatic = await submit('automatic');
    await intake.handle([automaticAnswerCommand({ taskId: automatic.id, clinicIk: W, businessStatus: 'accepted', answersVersion: 1 })]);
    await intake.handle([clinicAnswerCommand({ taskId: automatic.id, clinicIk: W, businessStatus: 'declined' })]);
    expect(await rowsOf(automatic.id)).toEqual([]);
    const answered = await pool.query(`SELECT business_status FROM "${schema}".clinic_task WHERE id = $1`, [automatic.id]);
    expect(answered.rows).toEqual([{ business_status: 'declined' }]);
  });
});
