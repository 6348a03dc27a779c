import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { HttpError } from '@bedrequest/http';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import type { Caller, ClinicViewer } from '../access';
import { AuditTrail, AuditTrailRepository } from '../audit';
import { RequestErasureRepository } from '../erasure';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { admissionCommand, testSealedFields } from '../testing';
import { ClinicWorkspaceRepository } from './clinic-workspace.repository';
import { ClinicWorkspaceService } from './clinic-workspace.service';

const env = testEnvironment();
const A = '510000001';
const REFERRER = { partyId: 'referrer-workspace', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const clinicA: ClinicRecord = { ik: A, name: A, departments: [{ code: '2300', specialty: 'x', display: 'x' }] };
const person = (user: string, userName: string): Caller & { viewer: ClinicViewer } => ({ viewer: { role: 'clinic', ikNumbers: [A] }, user, userName });
const TOM = person('clinic-a-tom', 'Tom Becker');
const JANA = person('clinic-a-jana', 'Jana Schulz');
const NOTE = 'Intern: Patientin braucht Rollator, Tochter ruft zurück';

/**
 * The clinic's workspace against the real PostgreSQL (the whole path through the gateway:
 * tools/e2e/clinic-workspace.int.spec.ts): two takes at once leave one assignee, the notes are
 * bounded, sealed at rest and erased with the request, and every change is in the audit trail.
 */
describe("a clinic's workspace of its Tasks", () => {
  const schema = uniqueName('intake_workspace');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let intake: IntakeService;
  let workspace: ClinicWorkspaceService;
  let erasures: RequestErasureRepository;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 4 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 2 });
    const fields = await testSealedFields(prisma, schema);
    intake = new IntakeService(
      new AdmissionRequestRepository(prismaRunner(prisma), schema, fields),
      { lookup: async () => new Map([[A, clinicA]]) },
      fhirSystems(),
    );
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema));
    workspace = new ClinicWorkspaceService(new ClinicWorkspaceRepository(prisma, schema, fields), audit, { maxNotes: 2 });
    erasures = new RequestErasureRepository(prisma, schema);
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const newTask = async (): Promise<{ identifier: string; taskId: string }> => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await intake.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A] }, REFERRER)]);
    const { rows } = await pool.query<{ id: string }>(
      `SELECT t.id FROM "${schema}".clinic_task t JOIN "${schema}".admission_request r ON r.id = t.request_id WHERE r.identifier = $1`,
      [identifier],
    );
    return { identifier, taskId: rows[0]!.id };
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => 'taken',
      (error: unknown) => (error instanceof HttpError ? error.code : String(error)),
    );

  it('leaves one assignee when two people take a request at once, and records each change', async () => {
    const { identifier, taskId } = await newTask();
    const outcomes = await Promise.all([refusal(workspace.take(taskId, TOM, false)), refusal(workspace.take(taskId, JANA, false))]);
    expect(outcomes.sort()).toEqual(['conflict', 'taken']);
    const assignee = (await workspace.read(taskId, TOM)).assignee;
    expect([TOM.user, JANA.user]).toContain(assignee?.user);

    await workspace.take(taskId, assignee?.user === TOM.user ? JANA : TOM, true);
    const { rows } = await pool.query<{ change: string }>(
      `SELECT d->>'valueString' AS change FROM "${schema}".audit_events, jsonb_array_elements(resource->'entity'->0->'detail') d
        WHERE resource->'entity'->0->'what'->'identifier'->>'value' = $1 AND d->>'type' = 'change'`,
      [identifier],
    );
    expect(rows.map((row) => row.change).sort()).toEqual(['assignee-taken', 'assignee-taken', 'created']);
  });

  it('keeps at most the bound of notes, sealed at rest, and erases them with the request', async () => {
    const { identifier, taskId } = await newTask();
    await workspace.addNote(taskId, TOM, NOTE);
    await workspace.addNote(taskId, JANA, 'Zweite Notiz');
    expect(await refusal(workspace.addNote(taskId, TOM, 'Dritte Notiz'))).toBe('conflict');
    expect((await workspace.read(taskId, JANA)).internalNotes.map((note) => [note.author.name, note.text])).toEqual([
      ['Tom Becker', NOTE],
      ['Jana Schulz', 'Zweite Notiz'],
    ]);
    const stored = await pool.query<{ sealed: string }>(
      `SELECT encode(sealed_note, 'escape') AS sealed FROM "${schema}".clinic_internal_note WHERE task_id = $1`,
      [taskId],
    );
    expect(stored.rows).toHaveLength(2);
    expect(stored.rows.map((row) => row.sealed).join()).not.toContain('Rollator');

    await erasures.erase({ identifier }, { agent: { kind: 'service', service: 'test' }, reason: 'requested', correlationId: 'test' });
    const left = await pool.query(`SELECT 1 FROM "${schema}".clinic_internal_note WHERE task_id = $1`, [taskId]);
    expect(left.rows).toEqual([]);
    expect((await workspace.read(taskId, TOM)).internalNotes).toEqual([]);
    expect(await refusal(workspace.addNote(taskId, TOM, 'Nach der Löschung'))).toBe('gone');
  });

  it('answers not found to another clinic and for a Task id that is none', async () => {
    const { taskId } = await newTask();
    const other: Caller & { viewer: ClinicViewer } = { viewer: { role: 'clinic', ikNumbers: ['510000009'] }, user: 'other' };
    expect(await refusal(workspace.read(taskId, other))).toBe('not_found');
    expect(await refusal(workspace.take(taskId, other, true))).toBe('not_found');
    expect(await refusal(workspace.read('not-a-task', TOM))).toBe('not_found');
    expect((await workspace.marks([taskId, randomUUID()], other)).items).toEqual([]);
  });
});
