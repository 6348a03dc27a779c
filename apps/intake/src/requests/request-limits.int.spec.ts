import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { openIntakeDatabase, type IntakeDatabase, prismaRunner } from '../persistence';
import { admissionCommand, clinicAnswerCommand, documentCommand, testSealedFields } from '../testing';
import { AdmissionRequestRepository } from './admission-request.repository';
import { IntakeService } from './intake.service';

const env = testEnvironment();
const A = '510000001';
const referrer = { partyId: 'referrer-limits', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const registry = new Map<string, ClinicRecord>([[A, { ik: A, name: A, departments: [{ code: '2300', specialty: 'x', display: 'x' }] }]]);

/**
 * What one request may hold is bounded (versions, documents, bytes: docs/api.md, "Limits per
 * request"), so that no referrer makes every read of it cost more and more. A limit refuses a
 * supplement or a document with 409 and issue code `too-long`, changing nothing; it never refuses a
 * selection, its withdrawal or a revocation.
 */
describe('limits per request', () => {
  const schema = uniqueName('intake_limits');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let repository: AdmissionRequestRepository;
  const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : []))) };
  const serviceWith = (limits: { versions: number; documents: number; bytes: number; notes?: number }) =>
    new IntakeService(repository, clinics, fhirSystems(), { limits });

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    repository = new AdmissionRequestRepository(prismaRunner(prisma), schema, await testSealedFields(prisma, schema));
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const submission = (options: Parameters<typeof admissionCommand>[0]) => admissionCommand(options, referrer);
  const document = (identifier: string, text = `Arztbrief ${randomUUID()}`) => documentCommand(identifier, referrer, { contentType: 'text/plain', text });
  const accept = (taskId: string, note?: string) => clinicAnswerCommand({ taskId, clinicIk: A, businessStatus: 'accepted', ...(note ? { note } : {}) });
  const newIdentifier = () => `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const stored = async (identifier: string) => {
    const [row] = (
      await pool.query(
        `SELECT (SELECT count(*)::int FROM "${schema}".request_version v WHERE v.request_id = r.id) AS versions,
                (SELECT count(*)::int FROM "${schema}".request_document d WHERE d.request_id = r.id) AS documents,
                (SELECT t.id FROM "${schema}".clinic_task t WHERE t.request_id = r.id) AS task_id
           FROM "${schema}".admission_request r WHERE r.identifier = $1`,
        [identifier],
      )
    ).rows as { versions: number; documents: number; task_id: string }[];
    return row!;
  };
  const tooLong = (diagnostics: RegExp) => ({
    outcome: 'rejected',
    refusal: 'conflict',
    issues: [{ code: 'too-long', diagnostics: expect.stringMatching(diagnostics) }],
  });

  it('refuses a supplement over the version limit, and still takes the selection, its withdrawal and the revocation', async () => {
    const service = serviceWith({ versions: 3, documents: 10, bytes: 10 * 1024 * 1024 });
    const identifier = newIdentifier();
    const version = (n: number) => submission({ requestIdentifier: identifier, performerIks: [A], notes: [`Fassung ${n}`] });
    expect(await service.handle([version(1), version(2), version(3)])).toMatchObject([
      { outcome: 'accepted' },
      { outcome: 'accepted' },
      { outcome: 'accepted' },
    ]);

    expect(await service.handle([version(4)])).toEqual([tooLong(/3 versions.*limit of 3/)]);
    expect((await stored(identifier)).versions).toBe(3);

    await service.handle([accept((await stored(identifier)).task_id)]);
    const selection = submission({ requestIdentifier: identifier, intent: 'order', orderDetail: 'selected-provider', performerIks: [A] });
    const withdrawal = submission({ requestIdentifier: identifier, intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [A] });
    const revocation = submission({ requestIdentifier: identifier, status: 'revoked', performerIks: [A] });
    expect(await service.handle([selection])).toMatchObject([{ outcome: 'accepted' }]);
    expect(await service.handle([withdrawal])).toMatchObject([{ outcome: 'accepted' }]);
    expect(await service.handle([revocation])).toMatchObject([{ outcome: 'accepted' }]);
    expect((await stored(identifier)).versions).toBe(6);
  });

  it('counts the versions a batch adds itself', async () => {
    const service = serviceWith({ versions: 2, documents: 10, bytes: 10 * 1024 * 1024 });
    const identifier = newIdentifier();
    const verdicts = await service.handle([1, 2, 3].map((n) => submission({ requestIdentifier: identifier, performerIks: [A], notes: [`Fassung ${n}`] })));

    expect(verdicts).toMatchObject([{ outcome: 'accepted' }, { outcome: 'accepted' }, tooLong(/limit of 2/)]);
    expect((await stored(identifier)).versions).toBe(2);
  });

  it('refuses a document over the document limit', async () => {
    const service = serviceWith({ versions: 10, documents: 2, bytes: 10 * 1024 * 1024 });
    const identifier = newIdentifier();
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [A] })]);

    const verdicts = await service.handle([document(identifier), document(identifier), document(identifier)]);

    expect(verdicts).toMatchObject([{ outcome: 'accepted' }, { outcome: 'accepted' }, tooLong(/2 documents.*limit of 2/)]);
    expect((await stored(identifier)).documents).toBe(2);
  });

  it('refuses a supplement or a document that would take the request over its bytes, as stored before and within the batch', async () => {
    const identifier = newIdentifier();
    const first = submission({ requestIdentifier: identifier, performerIks: [A] });
    const size = Buffer.byteLength(JSON.stringify((first as { bundle: unknown }).bundle));
    // Room for the request and one document of 5 kB, not for a second one nor for a supplement after it.
    const service = serviceWith({ versions: 10, documents: 10, bytes: size + 8_000 });
    await service.handle([first]);

    const verdicts = await service.handle([document(identifier, 'x'.repeat(5_000)), document(identifier, 'y'.repeat(5_000))]);
    expect(verdicts).toMatchObject([{ outcome: 'accepted' }, tooLong(/bytes/)]);
    expect(await service.handle([submission({ requestIdentifier: identifier, performerIks: [A], notes: ['noch eine Fassung'] })])).toEqual([tooLong(/bytes/)]);
    expect(await stored(identifier)).toMatchObject({ versions: 1, documents: 1 });
  });

  it("refuses a clinic's note over the notes a Task may hold, and still takes its answer without one", async () => {
    const service = serviceWith({ versions: 10, documents: 10, bytes: 10 * 1024 * 1024, notes: 2 });
    const identifier = newIdentifier();
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [A] })]);
    const taskId = (await stored(identifier)).task_id;

    const verdicts = await service.handle([accept(taskId, 'Notiz 1'), accept(taskId, 'Notiz 2'), accept(taskId, 'Notiz 3'), accept(taskId)]);

    expect(verdicts).toMatchObject([{ outcome: 'accepted' }, { outcome: 'accepted' }, tooLong(/2 notes.*limit of 2/), { outcome: 'accepted' }]);
  });
});
