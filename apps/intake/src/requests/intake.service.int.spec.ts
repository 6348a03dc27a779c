import { randomUUID } from 'node:crypto';
import { workOf } from '@bedrequest/messaging';
import { Pool } from 'pg';
import { ClinicAnswerSubmittedV1, createEnvelope, type ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { openIntakeDatabase, type IntakeDatabase, prismaRunner, sealedFor, type SealedFields } from '../persistence';
import { admissionCommand, testSealedFields } from '../testing';
import { AdmissionRequestRepository } from './admission-request.repository';
import { intakeCommands, type IntakeCommand } from './intake-commands';
import { IntakeService } from './intake.service';
import { RequestBatch } from './request-batch';

const env = testEnvironment();
const A = '510000001';
const B = '510000002';
const referrer = { partyId: 'referrer-batch', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const clinic = (ik: string, departments: string[]): ClinicRecord => ({
  ik,
  name: ik,
  departments: departments.map((code) => ({ code, specialty: 'x', display: 'x' })),
});

/**
 * Intake's batches against the real PostgreSQL: the semantics of one unit of work of several
 * messages, which the broker's batching relies on.
 */
describe('IntakeService batches against the real PostgreSQL', () => {
  const schema = uniqueName('intake_batch');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let service: IntakeService;
  let repository: AdmissionRequestRepository;
  let fields: SealedFields;
  // A offers orthopaedics (what the fixtures ask for); B only cardiology.
  const registry = new Map([
    [A, clinic(A, ['2300'])],
    [B, clinic(B, ['0300'])],
  ]);

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : []))) };
    fields = await testSealedFields(prisma, schema);
    repository = new AdmissionRequestRepository(prismaRunner(prisma), schema, fields);
    service = new IntakeService(repository, clinics, fhirSystems());
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  /** The command of a bundle as the gateway sends it: validated, with what it read of it. */
  const submission = (options: Parameters<typeof admissionCommand>[0], submitter = referrer): IntakeCommand => admissionCommand(options, submitter);
  const query = async <T>(sql: string, values: unknown[]) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];
  const versionsOf = (identifier: string) =>
    query<{ version: number }>(
      'SELECT v.version FROM $schema.request_version v JOIN $schema.admission_request r ON r.id = v.request_id WHERE r.identifier = $1 ORDER BY v.version',
      [identifier],
    );
  const outboxOf = (identifier: string) =>
    query<{ routing_key: string; version: number | null; tasks: { clinicIk: string; declined?: string }[] | null }>(
      `SELECT routing_key, (envelope #>> '{payload,version}')::int AS version, envelope #> '{payload,tasks}' AS tasks
         FROM $schema.outbox_message WHERE envelope #>> '{payload,requestIdentifier}' = $1 ORDER BY id`,
      [identifier],
    );
  const newIdentifier = () => `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;

  it('applies two bundles for the same request in one batch in order, as two versions', async () => {
    const identifier = newIdentifier();
    const verdicts = await service.handle([
      submission({ requestIdentifier: identifier, performerIks: [A] }),
      submission({ requestIdentifier: identifier, performerIks: [A], notes: ['Befund ergänzt'] }),
    ]);

    expect(verdicts.map((verdict) => verdict.outcome)).toEqual(['accepted', 'accepted']);
    expect(await versionsOf(identifier)).toEqual([{ version: 1 }, { version: 2 }]);
    expect((await outboxOf(identifier)).map((row) => [row.routing_key, row.version])).toEqual([
      ['request.dispatched.v1', 1],
      ['request.dispatched.v1', 2],
    ]);
  });

  it('a redelivered batch gets the same verdicts and changes nothing; a copy within a batch counts once', async () => {
    const identifier = newIdentifier();
    const create = submission({ requestIdentifier: identifier, performerIks: [A] });
    const supplement = submission({ requestIdentifier: identifier, performerIks: [A], notes: ['zweite Fassung'] });
    const first = await service.handle([create, supplement, supplement]);
    const again = await service.handle([create, supplement]);

    expect(first[2]).toEqual(first[1]);
    expect(again).toEqual(first.slice(0, 2));
    expect(await versionsOf(identifier)).toEqual([{ version: 1 }, { version: 2 }]);
    expect(await outboxOf(identifier)).toHaveLength(2);
  });

  it('says why it refused a bundle', async () => {
    const identifier = newIdentifier();
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [A] })]);

    const [verdict] = await service.handle([
      submission({ requestIdentifier: identifier, intent: 'order', orderDetail: 'selected-provider', performerIks: [A] }),
    ]);

    expect(verdict).toEqual({
      outcome: 'rejected',
      refusal: 'conflict',
      issues: [{ code: 'conflict', diagnostics: `clinic ${A} cannot be selected: its latest answer is not "accepted"` }],
    });
  });

  it('declines at once for a requested clinic that does not offer the department, and tells routing so', async () => {
    const identifier = newIdentifier();
    const [verdict] = await service.handle([submission({ requestIdentifier: identifier, performerIks: [A, B] })]);

    expect(verdict).toMatchObject({ outcome: 'accepted' });
    const rows = await query<{ id: string; clinic_ik: string; status: string; business_status: string | null; sealed_notes: Buffer }>(
      'SELECT t.id, t.clinic_ik, t.status, t.business_status, t.sealed_notes FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1 ORDER BY t.clinic_ik',
      [identifier],
    );
    // The notes are stored sealed for their Task.
    const tasks = await Promise.all(
      rows.map(async ({ id, sealed_notes: sealed, ...task }) => ({ ...task, notes: await fields.open(sealedFor.notes(id), sealed) })),
    );
    expect(tasks).toEqual([
      { clinic_ik: A, status: 'requested', business_status: null, notes: [] },
      {
        clinic_ik: B,
        status: 'rejected',
        business_status: 'declined',
        // The note begins with the clinic's name from the registry (here its IK).
        notes: [expect.objectContaining({ text: `${B}: Absage für Orthopädie (2300) – automatisch, die Klinik bietet diese Fachabteilung nicht an.` })],
      },
    ]);
    const outbox = await outboxOf(identifier);
    expect(outbox.map((row) => row.routing_key)).toEqual(['request.dispatched.v1', 'admission.response.v1']);
    expect(outbox[0]!.tasks).toEqual([expect.objectContaining({ clinicIk: A }), expect.objectContaining({ clinicIk: B, declined: 'department-not-offered' })]);
    expect(outbox[0]!.tasks![0]).not.toHaveProperty('declined');
    const [response] = await query<{ source: string; code: string }>(
      `SELECT envelope #>> '{payload,source}' AS source, envelope #>> '{payload,task,businessStatus,coding,0,code}' AS code
         FROM $schema.outbox_message WHERE routing_key = 'admission.response.v1' AND envelope #>> '{payload,requestIdentifier}' = $1`,
      [identifier],
    );
    expect(response).toEqual({ source: 'automatic', code: 'declined' });
  });

  it('a batch the database refuses changes nothing at all', async () => {
    const good = newIdentifier();
    // PostgreSQL cannot store U+0000 in text: the whole statement fails, the transaction rolls back.
    const poison = submission({ requestIdentifier: newIdentifier(), performerIks: [A] }, { ...referrer, partyId: `poison\u0000${randomUUID()}` });

    await expect(service.handle([submission({ requestIdentifier: good, performerIks: [A] }), poison])).rejects.toThrow();
    expect(await versionsOf(good)).toEqual([]);
    expect(await outboxOf(good)).toEqual([]);
  });

  it('a batch whose request changed after it was read writes nothing and fails as a concurrent change', async () => {
    const identifier = newIdentifier();
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [A] })]);
    const late = submission({ requestIdentifier: identifier, performerIks: [A], notes: ['gelesen vor der anderen Änderung'] });
    // This batch reads the request at version 1 ...
    const loaded = await repository.load({ identifiers: [identifier], taskIds: [], messageIds: [late.meta.messageId], documentHashes: [] });
    const batch = new RequestBatch(loaded, { clinics: registry, systems: fhirSystems(), now: new Date() });
    batch.apply((await service.fingerprinted([late]))[0]!);
    // ... another one changes it to version 2 meanwhile ...
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [A], notes: ['die andere Änderung'] })]);

    // ... so the first may not write what it decided on version 1.
    await expect(repository.write(batch.result())).rejects.toThrow(/concurrent change/);
    expect(await versionsOf(identifier)).toEqual([{ version: 1 }, { version: 2 }]);
    const inbox = await query('SELECT 1 FROM $schema.inbox_message WHERE message_id = $1', [late.meta.messageId]);
    expect(inbox).toEqual([]);
    // Tried again (as the broker does after splitting the batch), it applies on top of version 2.
    expect(await service.handle([late])).toEqual([expect.objectContaining({ outcome: 'accepted' })]);
    expect(await versionsOf(identifier)).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
  });

  it('an answer to a Task that changed after the batch read it writes nothing', async () => {
    const identifier = newIdentifier();
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [A] })]);
    const [task] = await query<{ id: string }>(
      'SELECT t.id FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1',
      [identifier],
    );
    const answer = (businessStatus: 'accepted' | 'declined') =>
      workOf(intakeCommands, {
        envelope: createEnvelope(
          ClinicAnswerSubmittedV1,
          { taskId: task!.id, clinicIk: A, businessStatus, source: 'clinic', user: 'clinic-user' },
          { correlationId: 'batch-test' },
        ),
        definition: ClinicAnswerSubmittedV1,
      });
    const late = answer('declined');
    const loaded = await repository.load({ identifiers: [], taskIds: [task!.id], messageIds: [late.meta.messageId], documentHashes: [] });
    const batch = new RequestBatch(loaded, { clinics: registry, systems: fhirSystems(), now: new Date() });
    expect(batch.apply((await service.fingerprinted([late]))[0]!)).toMatchObject({ outcome: 'accepted', task: expect.any(Object) });
    await service.handle([answer('accepted')]);

    await expect(repository.write(batch.result())).rejects.toThrow(/concurrent change: Tasks/);
    const [stored] = await query<{ business_status: string; revision: number }>('SELECT business_status, revision FROM $schema.clinic_task WHERE id = $1', [
      task!.id,
    ]);
    expect(stored).toEqual({ business_status: 'accepted', revision: 1 });
  });
});
