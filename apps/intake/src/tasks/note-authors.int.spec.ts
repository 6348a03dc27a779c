import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Annotation, Bundle, Task } from '@medplum/fhirtypes';
import { Pool } from 'pg';
import { Registry } from 'prom-client';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems, IK_NUMBER_SYSTEM } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { createServiceHttpApp, listen } from '@bedrequest/observability';
import { expectValidFhir, silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, localKeys, newSigningKey } from '@bedrequest/tokens/testing';
import { AuditTrail, AuditTrailRepository } from '../audit';
import { RequestErasureRepository } from '../erasure';
import { internalRouter } from '../http';
import { openIntakeDatabase, prismaRunner, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { admissionCommand, automaticAnswerCommand, clinicAnswerCommand, testSealedFields } from '../testing';
import { TaskReadRepository } from './task-read.repository';
import { TaskReadService } from './task-read.service';

const env = testEnvironment();
const A = '510000001';
const B = '510000002';
const REFERRER = { partyId: 'referrer-notes', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
/** Two people of clinic A's party (docs/parties.md, "Tokens"). */
const JANA = { sub: 'clinic-a-jana', name: 'Jana Schulz' };
const TOM = { sub: 'clinic-a-tom', name: 'Tom Becker' };
const USER_SYSTEM = fhirSystems().userSystem;
const clinic = (ik: string, departments: string[]): ClinicRecord => ({
  ik,
  name: ik,
  departments: departments.map((code) => ({ code, specialty: 'x', display: 'x' })),
});
// A offers orthopaedics (what the fixtures ask for); B does not, and is declined at once by intake.
const registry = new Map([
  [A, clinic(A, ['2300'])],
  [B, clinic(B, ['0300'])],
]);

/** A note reduced to its text and who wrote it, as the tests compare them. */
const authorsOf = (task: Task) =>
  (task.note ?? []).map((note: Annotation) => [note.text, note.authorReference?.type, note.authorReference?.identifier?.value, note.authorReference?.display]);

/**
 * Who of a clinic wrote each note of its answers (docs/api.md, "Tasks"), against the real
 * PostgreSQL and over intake's internal HTTP API as the gateway calls it: the clinic's own Task
 * names them, the referrer's does not, an automatic answer names no person.
 */
describe("the authors of a Task's notes", () => {
  const schema = uniqueName('intake_authors');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let fields: SealedFields;
  let service: IntakeService;
  let server: Server;
  let baseUrl: string;
  let tokens: Record<'referrer' | 'jana' | 'tom' | 'clinicB', string>;
  let identifier: string;
  let taskA: string;
  let taskB: string;
  let janaReply: unknown;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 4 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 2 });
    fields = await testSealedFields(prisma, schema);
    const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : []))) };
    service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, fields), clinics, fhirSystems());

    const key = await newSigningKey();
    tokens = {
      referrer: await accessToken(key, { sub: REFERRER.partyId, claims: { role: 'referrer', ik: REFERRER.ikNumbers, fhirBase: FIXTURE_FHIR_BASE } }),
      jana: await accessToken(key, { sub: 'clinic-a-party', claims: { role: 'clinic', ik: [A], act: JANA } }),
      tom: await accessToken(key, { sub: 'clinic-a-party', claims: { role: 'clinic', ik: [A], act: TOM } }),
      clinicB: await accessToken(key, { sub: 'clinic-b-party', claims: { role: 'clinic', ik: [B] } }),
    };
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema));
    const tasks = new TaskReadService(new TaskReadRepository(prisma, schema, fields), fhirSystems(), audit);
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
    const app = createServiceHttpApp({ logger: silentLogger(), registry: new Registry(), trustedProxies: ['loopback'] });
    server = await listen(app.use(internalRouter(tasks, audit, new RequestErasureRepository(prisma, schema), verifier, silentLogger())), 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // The request reaches A and B (B declined at once); Jana asks a question, routing accepts from
    // A's bed counts, Tom declines from an earlier gateway's message without his display name, and
    // Jana answers once more without a note.
    identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A, B] }, REFERRER)]);
    [taskA, taskB] = [await taskOf(A), await taskOf(B)];
    [janaReply] = await service.handle([
      clinicAnswerCommand({ taskId: taskA, clinicIk: A, businessStatus: 'query', note: 'Bitte Befund nachreichen', user: JANA.sub, userName: JANA.name }),
    ]);
    await service.handle([
      automaticAnswerCommand({ taskId: taskA, clinicIk: A, businessStatus: 'accepted', note: 'Freie Betten laut Meldung', answersVersion: 1 }),
    ]);
    await service.handle([clinicAnswerCommand({ taskId: taskA, clinicIk: A, businessStatus: 'declined', note: 'Doch kein Platz', user: TOM.sub })]);
    await service.handle([clinicAnswerCommand({ taskId: taskA, clinicIk: A, businessStatus: 'accepted', user: JANA.sub, userName: JANA.name })]);
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  async function taskOf(clinicIk: string): Promise<string> {
    const { rows } = await pool.query<{ id: string }>(
      `SELECT t.id FROM "${schema}".clinic_task t JOIN "${schema}".admission_request r ON r.id = t.request_id WHERE r.identifier = $1 AND t.clinic_ik = $2`,
      [identifier, clinicIk],
    );
    return rows[0]!.id;
  }

  const get = async (path: string, token: string) => {
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, connection: 'close' } });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Task | Bundle<Task>;
    expectValidFhir(body, path);
    return body;
  };
  const read = async (taskId: string, token: string) => (await get(`/internal/tasks/${taskId}`, token)) as Task;
  const searched = async (token: string) =>
    ((await get(`/internal/tasks?based-on=${encodeURIComponent(identifier)}`, token)) as Bundle<Task>).entry!.map((entry) => entry.resource!);

  const JANAS_NOTE = ['Bitte Befund nachreichen', 'Practitioner', JANA.sub, JANA.name];
  const AUTOMATIC_NOTE = ['Freie Betten laut Meldung', 'Organization', A, undefined];
  const TOMS_NOTE = ['Doch kein Platz', 'Practitioner', TOM.sub, undefined];

  it("names in the clinic's own Task the person who wrote each note, and the clinic itself for an automatic answer", async () => {
    const task = await read(taskA, tokens.jana);

    expect(authorsOf(task)).toEqual([JANAS_NOTE, AUTOMATIC_NOTE, TOMS_NOTE]);
    expect(task.note![0]!.authorReference!.identifier!.system).toBe(USER_SYSTEM);
    expect(task.note![1]!.authorReference!.identifier!.system).toBe(IK_NUMBER_SYSTEM);
    // Every person of the clinic's party reads the same: the Task is the party's.
    expect(authorsOf(await read(taskA, tokens.tom))).toEqual(authorsOf(task));
  });

  it("names them in the clinic's Task search and in the reply to the clinic's answer too", async () => {
    expect(authorsOf((await searched(tokens.tom)).find((task) => task.id === taskA)!)).toEqual([JANAS_NOTE, AUTOMATIC_NOTE, TOMS_NOTE]);
    expect(authorsOf((janaReply as { task: Task }).task)).toEqual([JANAS_NOTE]);
  });

  it("shows the referrer the clinic's notes without who wrote them, in its reads and its webhooks", async () => {
    const texts = ['Bitte Befund nachreichen', 'Freie Betten laut Meldung', 'Doch kein Platz'];
    const task = await read(taskA, tokens.referrer);
    expect(task.note).toEqual(texts.map((text) => ({ text, time: expect.any(String) })));
    expect((await searched(tokens.referrer)).find((entry) => entry.id === taskA)!.note).toEqual(task.note);

    const { rows } = await pool.query<{ envelope: { payload: { task: Task } } }>(
      `SELECT envelope FROM "${schema}".outbox_message WHERE routing_key LIKE 'admission.response%' AND envelope #>> '{payload,task,id}' = $1 ORDER BY id`,
      [taskA],
    );
    expect(rows).toHaveLength(4);
    for (const { envelope } of rows) expect(JSON.stringify(envelope)).not.toMatch(/authorReference|clinic-a-jana|Jana|clinic-a-tom/);
  });

  it("names the service's decline for a department the clinic does not offer as automatic", async () => {
    expect(authorsOf(await read(taskB, tokens.clinicB))).toEqual([[expect.any(String), 'Organization', B, undefined]]);
  });

  it('names no author for a note stored before intake kept them', async () => {
    const earlier = [{ text: 'Vor dem Update', time: '2026-11-01T10:00:00.000Z' }];
    await pool.query(`UPDATE "${schema}".clinic_task SET sealed_notes = $2 WHERE id = $1`, [taskB, fields.seal(sealedFor.notes(taskB), earlier)]);

    expect((await read(taskB, tokens.clinicB)).note).toEqual(earlier);
  });

  it('keeps the names sealed with the notes, and erases them with the request', async () => {
    const inClear = async (value: string) =>
      (await pool.query(`SELECT 1 FROM "${schema}".clinic_task WHERE position(convert_to($1, 'UTF8') IN sealed_notes) > 0`, [value])).rowCount;
    expect(await inClear(JANA.name)).toBe(0);
    expect(await inClear(JANA.sub)).toBe(0);

    const erasure = await fetch(`${baseUrl}/internal/requests?identifier=${encodeURIComponent(identifier)}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${tokens.referrer}`, connection: 'close' },
    });
    expect(erasure.status).toBe(202);
    expect((await read(taskA, tokens.jana)).note).toBeUndefined();
    const { rows } = await pool.query(`SELECT id FROM "${schema}".clinic_task WHERE id = $1 AND sealed_notes IS NOT NULL`, [taskA]);
    expect(rows).toEqual([]);
  });
});
