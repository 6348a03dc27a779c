import { randomBytes, randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { ClinicRecord } from '@bedrequest/contracts';
import { SealedValueRejectedError } from '@bedrequest/crypto';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK, type admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { dumpSchemas, formsOf, testEnvironment, uniqueName } from '@bedrequest/testing';
import { INTAKE_KEYS_CLI, openIntakeKeys } from './cli';
import { ClinicTaskReadsRepository } from './clinic-tasks/clinic-task-reads.repository';
import { IntakeCliConfig } from './config';
import { openIntakeDatabase, type IntakeDatabase } from './persistence/database';
import { openSealedFields } from './persistence/sealed-fields';
import { prismaRunner } from './persistence/sql-runner';
import { AdmissionRequestRepository } from './requests/admission-request.repository';
import { IntakeService } from './requests/intake.service';
import { TaskReadRepository } from './tasks/task-read.repository';
import { admissionCommand, clinicAnswerCommand, documentCommand } from './testing/commands';

const env = testEnvironment();
const CLINIC = '510000001';
const REFERRER = { partyId: 'referrer-at-rest', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const registry = new Map<string, ClinicRecord>([
  [CLINIC, { ik: CLINIC, name: CLINIC, departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] }],
]);
const newKek = () => randomBytes(32).toString('base64');

/**
 * Intake's data at rest against the real PostgreSQL, with the keys as production reads them
 * (DATA_KEK required): what a copy of the schema shows, a value copied to another row, and a
 * rotation of the key-encryption key with the re-encryption of old rows.
 */
describe("intake's data at rest", () => {
  const schema = uniqueName('intake_at_rest');
  const keks = { a: newKek(), b: newKek() };
  let prisma: IntakeDatabase;
  let pool: Pool;

  /** Intake's repositories on the test's schema under these key variables (production mode). */
  const intakeWith = async (keys: Record<string, string>) => {
    const config = IntakeCliConfig.parse({ NODE_ENV: 'production', DATABASE_URL: env.databaseUrl, INTAKE_DB_SCHEMA: schema, ...keys });
    const { fields } = await openSealedFields(config, prisma);
    const lookup = async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : [])));
    return {
      fields,
      service: new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, fields), { lookup }, fhirSystems()),
      tasks: new TaskReadRepository(prisma, schema, fields),
      lists: new ClinicTaskReadsRepository(prisma, schema, fields),
    };
  };
  /** `npm run admin -- intake ...` on the test's schema, with these key variables. */
  const admin = async (keys: Record<string, string>, ...argv: string[]): Promise<string[]> => {
    const out: string[] = [];
    const err: string[] = [];
    const config = IntakeCliConfig.parse({ NODE_ENV: 'production', DATABASE_URL: env.databaseUrl, INTAKE_DB_SCHEMA: schema, ...keys });
    const code = await INTAKE_KEYS_CLI.run(['intake', ...argv], {
      open: () => openIntakeKeys(config),
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    if (code !== 0) throw new Error(`intake ${argv.join(' ')} failed: ${err.join(' ')}`);
    return out;
  };
  const query = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];

  const submission = (options: Parameters<typeof admissionRequestBundle>[0]) => admissionCommand(options, REFERRER);
  const letter = `Arztbrief: Zustand nach Hüft-TEP links, Wundheilung regelrecht (${randomUUID()})`;
  const note = `Aufnahme am Montag; bitte Medikationsplan mitgeben (${randomUUID()})`;

  /** A request with a document, answered with a note, then selected with the patient's complete data. */
  async function wholeRequest(service: IntakeService) {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [CLINIC], notes: ['Z. n. Sturz in der Häuslichkeit'] })]);
    await service.handle([documentCommand(identifier, REFERRER, { contentType: 'text/plain', text: letter })]);
    const [task] = await query<{ id: string; request_id: string }>(
      'SELECT t.id, t.request_id FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1',
      [identifier],
    );
    await service.handle([clinicAnswerCommand({ taskId: task!.id, clinicIk: CLINIC, businessStatus: 'accepted', note })]);
    const [selected] = await service.handle([
      submission({ requestIdentifier: identifier, performerIks: [CLINIC], orderDetail: 'selected-provider', patient: 'complete' }),
    ]);
    expect(selected).toMatchObject({ outcome: 'accepted' });
    return { identifier, taskId: task!.id, requestId: task!.request_id };
  }
  /** What a clinic reads of the request: its Task's notes, the latest bundle, the documents and its list row. */
  const readBack = async (intake: Awaited<ReturnType<typeof intakeWith>>, request: { taskId: string; requestId: string }) => {
    const task = await intake.tasks.findTask(request.taskId);
    const bundle = await intake.tasks.findBundle(request.requestId, task!.sentVersion);
    const documents = await intake.tasks.documentsOf((await intake.tasks.documentRows(request.requestId, null)).map((row) => row.id));
    const [row] = (await intake.lists.summaries({ viewer: { role: 'clinic', ikNumbers: [CLINIC] }, count: 100, offset: 0 })).filter(
      (candidate) => candidate.id === request.taskId,
    );
    return {
      notes: task!.notes.map((entry) => entry.text),
      patientName: JSON.stringify(bundle).includes('Musterfrau'),
      documents: documents.map((document) => JSON.stringify(document.bundle).includes(Buffer.from(letter).toString('base64').slice(0, 40))),
      row: row && { gender: row.gender, birthDate: row.birth_date, masked: row.masked, diagnosis: row.diagnosis_code },
    };
  };
  const expectedReadBack = {
    notes: [note],
    patientName: true,
    documents: [true],
    row: { gender: 'female', birthDate: '1956-01-01', masked: false, diagnosis: 'S72.01' },
  };
  /** Each sealed value's data key (bytes 2-17), over every sealed column. */
  const keysInUse = async () => {
    const rows = await query<{ key: string }>(
      `SELECT DISTINCT encode(substring(v FROM 2 FOR 16), 'hex') AS key FROM (
         SELECT sealed_bundle AS v FROM $schema.request_version UNION ALL SELECT sealed_summary FROM $schema.request_version
         UNION ALL SELECT sealed_bundle FROM $schema.request_document UNION ALL SELECT sealed_notes FROM $schema.clinic_task
         UNION ALL SELECT sealed_verdict FROM $schema.inbox_message) sealed WHERE v IS NOT NULL`,
    );
    return new Set(rows.map((row) => row.key.replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-')));
  };
  const dataKeys = async () => (await query<{ id: string }>('SELECT id::text FROM $schema.data_key ORDER BY created_at')).map((row) => row.id);

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 4 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  let first: Awaited<ReturnType<typeof wholeRequest>>;

  it("keeps none of the patient's data, the document or the clinic's note in clear: a pg_dump of the schema holds none of them", async () => {
    const intake = await intakeWith({ DATA_KEK: keks.a, DATA_KEK_ID: 'kek-a' });
    first = await wholeRequest(intake.service);

    expect(await readBack(intake, first)).toEqual(expectedReadBack);
    // The messages waiting for the outbox relay (not running here), which publishes and deletes
    // them at once: they are the broker's messages (the answer's Task with its note), in clear
    // until then (docs/data-protection.md).
    expect(await query("SELECT 1 FROM $schema.outbox_message WHERE envelope::text LIKE '%' || $1 || '%'", [note])).toHaveLength(1);
    await query('DELETE FROM $schema.outbox_message');
    const dump = await dumpSchemas(env.databaseUrl, [schema]);
    // The rows are there, with what the statements search by in clear ...
    expect(dump).toContain(first.identifier);
    expect(dump).toContain(first.taskId);
    // ... and the values sealed (version 1 of the format, then the data key's id).
    expect(dump).toContain(`\\x01${(await dataKeys())[0]!.replace(/-/g, '')}`);
    const patient = [
      'Musterfrau',
      'Erika',
      '1956-01-01',
      'Invalidenstraße 117',
      '+49 30 1234567',
      'Schenkelhalsfraktur',
      'Benigne essentielle Hypertonie',
      'Sturz in der Häuslichkeit',
    ];
    for (const secret of [...patient, letter, 'Wundheilung regelrecht', note, 'Medikationsplan']) {
      for (const form of formsOf(secret)) expect({ form, found: dump.includes(form) }).toEqual({ form, found: false });
    }
  });

  it('does not open a value copied to another row', async () => {
    const intake = await intakeWith({ DATA_KEK: keks.a, DATA_KEK_ID: 'kek-a' });
    const other = await wholeRequest(intake.service);
    const [kept] = await query<{ bundle: Buffer; notes: Buffer }>(
      'SELECT v.sealed_bundle AS bundle, t.sealed_notes AS notes FROM $schema.request_version v, $schema.clinic_task t WHERE v.request_id = $1 AND v.version = 1 AND t.id = $2',
      [other.requestId, other.taskId],
    );
    // The first request's latest version (complete data) copied over the other's first version, and its notes over the other's Task.
    await query(
      `UPDATE $schema.request_version SET sealed_bundle = (SELECT sealed_bundle FROM $schema.request_version WHERE request_id = $1 AND version = 2) WHERE request_id = $2 AND version = 1`,
      [first.requestId, other.requestId],
    );
    await query('UPDATE $schema.clinic_task SET sealed_notes = (SELECT sealed_notes FROM $schema.clinic_task WHERE id = $1) WHERE id = $2', [
      first.taskId,
      other.taskId,
    ]);

    await expect(intake.tasks.findBundle(other.requestId, 1)).rejects.toBeInstanceOf(SealedValueRejectedError);
    await expect(intake.tasks.findTask(other.taskId)).rejects.toBeInstanceOf(SealedValueRejectedError);
    // Its own row still opens.
    expect(JSON.stringify(await intake.tasks.findBundle(first.requestId, 2))).toContain('Musterfrau');
    await query('UPDATE $schema.request_version SET sealed_bundle = $2 WHERE request_id = $1 AND version = 1', [other.requestId, kept!.bundle]);
    await query('UPDATE $schema.clinic_task SET sealed_notes = $2 WHERE id = $1', [other.taskId, kept!.notes]);
  });

  it('after a new DATA_KEK reads what the old data key sealed and seals under a new one; reencrypt moves all to the new data key', async () => {
    const old = await wholeRequest((await intakeWith({ DATA_KEK: keks.a, DATA_KEK_ID: 'kek-a' })).service);
    const [keyA] = await dataKeys();
    expect(await keysInUse()).toEqual(new Set([keyA]));

    // kek-b current, kek-a still known: new rows get a new data key, old ones still open.
    const rotated = { DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b', DATA_PREVIOUS_KEKS: `kek-a:${keks.a}` };
    const intakeB = await intakeWith(rotated);
    const fresh = await wholeRequest(intakeB.service);
    const keyB = (await dataKeys()).at(-1)!;
    expect(keyB).not.toBe(keyA);
    expect(await keysInUse()).toEqual(new Set([keyA, keyB]));
    for (const request of [first, old, fresh]) expect(await readBack(intakeB, request)).toEqual(expectedReadBack);

    const progress = await admin(rotated, 'reencrypt', '--batch-size', '2');
    expect(progress).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^request_version\.sealed_bundle: done, \d+ re-encrypted$/),
        expect.stringMatching(/^clinic_task\.sealed_notes: done/),
      ]),
    );
    expect(await keysInUse()).toEqual(new Set([keyB]));

    // kek-a gone: everything opens under kek-b alone.
    const onlyB = await intakeWith({ DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b' });
    for (const request of [first, old, fresh]) expect(await readBack(onlyB, request)).toEqual(expectedReadBack);
  });
});
