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
import { admissionCommand, clinicAnswerCommand, documentCommand, testSealedFields } from '../testing';
import { TaskReadRepository, TaskReadService } from '../tasks';
import { ClinicTaskReadsRepository } from './clinic-task-reads.repository';
import { ClinicTaskReadsService } from './clinic-task-reads.service';

const env = testEnvironment();
const A = '510000001';
const B = '510000002';
const referrer = { partyId: 'referrer-pages', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const clinic = (ik: string): ClinicRecord => ({ ik, name: ik, departments: [{ code: '2300', specialty: 'x', display: 'x' }] });
const callerOf = (ik: string): Caller => ({ viewer: { role: 'clinic', ikNumbers: [ik] }, user: `user-${ik}`, address: '198.51.100.2' });

/**
 * A clinic reads a request's versions and documents a page at a time, and one document on its own,
 * so that no read loads every bundle of a request, and no answer grows past a ceiling of bytes
 * whatever the request holds (docs/api.md, "Clinic API").
 */
describe('paged reads of versions and documents', () => {
  const schema = uniqueName('intake_pages');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let service: IntakeService;
  let versionReads: (maxPageBytes?: number) => ClinicTaskReadsService;
  let documentReads: (maxPageBytes?: number) => TaskReadService;
  const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const taskOf: Record<string, string> = {};

  const submission = (options: Parameters<typeof admissionCommand>[0]) => admissionCommand({ requestIdentifier: identifier, ...options }, referrer);
  const document = (text: string) => documentCommand(identifier, referrer, { contentType: 'text/plain', text });
  const accept = (ik: string) => clinicAnswerCommand({ taskId: taskOf[ik]!, clinicIk: ik, businessStatus: 'accepted' });
  const textOf = (bundle: unknown) => {
    const entry = (bundle as { entry: { resource: { resourceType: string; content?: { attachment: { data: string } }[] } }[] }).entry;
    const reference = entry.find((item) => item.resource.resourceType === 'DocumentReference')!;
    return Buffer.from(reference.resource.content![0]!.attachment.data, 'base64').toString();
  };
  const versionsOf = (page: { items: { version: number }[] }) => page.items.map((item) => item.version);

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const fields = await testSealedFields(prisma, schema);
    const registry = new Map([A, B].map((ik) => [ik, clinic(ik)]));
    service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, fields), { lookup: async () => registry }, fhirSystems());
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema));
    versionReads = (maxPageBytes) => new ClinicTaskReadsService(new ClinicTaskReadsRepository(prisma, schema, fields), fhirSystems(), audit, { maxPageBytes });
    documentReads = (maxPageBytes) => new TaskReadService(new TaskReadRepository(prisma, schema, fields), fhirSystems(), audit, { maxPageBytes });

    // v1 to A and B; A accepts; v2 selects A (to A alone); v3 withdraws (to nobody); v4 names both again.
    await service.handle([submission({ performerIks: [A, B] })]);
    const tasks = await pool.query(`SELECT t.id, t.clinic_ik FROM "${schema}".clinic_task t`);
    for (const row of tasks.rows as { id: string; clinic_ik: string }[]) taskOf[row.clinic_ik] = row.id;
    await service.handle([accept(A)]);
    await service.handle([submission({ intent: 'order', orderDetail: 'selected-provider', performerIks: [A] })]);
    await service.handle([submission({ intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [A] })]);
    await service.handle([submission({ performerIks: [A, B], notes: ['vierte Fassung'] })]);
    await service.handle([document('Befund 1'), document('Befund 2'), document('Befund 3')]);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it('pages the versions a clinic was sent, oldest or newest first', async () => {
    const reads = versionReads();
    const all = await reads.versions(taskOf[B]!, callerOf(B), { _count: 20, _offset: 0, _sort: 'version' });
    expect(all).toMatchObject({ outcome: 'found', value: { total: 2 } });
    expect(all.outcome === 'found' && versionsOf(all.value)).toEqual([1, 4]);

    const first = await reads.versions(taskOf[A]!, callerOf(A), { _count: 2, _offset: 0, _sort: 'version' });
    expect(first.outcome === 'found' && [versionsOf(first.value), first.value.total, first.value.next]).toEqual([
      [1, 2],
      3,
      '?_count=2&_offset=2&_sort=version',
    ]);
    const second = await reads.versions(taskOf[A]!, callerOf(A), { _count: 2, _offset: 2, _sort: 'version' });
    expect(second.outcome === 'found' && [versionsOf(second.value), second.value.next]).toEqual([[4], undefined]);
    const newest = await reads.versions(taskOf[A]!, callerOf(A), { _count: 1, _offset: 0, _sort: '-version' });
    expect(newest.outcome === 'found' && versionsOf(newest.value)).toEqual([4]);
  });

  it('stops a page of versions before the ceiling of bytes, with at least one version', async () => {
    const page = await versionReads(1_000).versions(taskOf[A]!, callerOf(A), { _count: 20, _offset: 0, _sort: 'version' });
    expect(page.outcome === 'found' && [versionsOf(page.value), page.value.next]).toEqual([[1], '?_count=20&_offset=1&_sort=version']);
  });

  it('finds the versions sent of a request stored before the clinics were recorded with each version', async () => {
    await pool.query(`UPDATE "${schema}".request_version SET sent_to = NULL`);
    const page = await versionReads().versions(taskOf[B]!, callerOf(B), { _count: 20, _offset: 0, _sort: 'version' });
    expect(page.outcome === 'found' && versionsOf(page.value)).toEqual([1, 4]);
  });

  it('pages the documents, and reads one document alone', async () => {
    const reads = documentReads();
    const first = await reads.documentsForClinic(taskOf[B]!, callerOf(B), { _count: 2, _offset: 0 });
    expect(first.outcome === 'found' && [first.value.items.map(textOf), first.value.total, first.value.next]).toEqual([
      ['Befund 1', 'Befund 2'],
      3,
      '?_count=2&_offset=2',
    ]);
    const third = await reads.documentForClinic(taskOf[B]!, callerOf(B), 2);
    expect(third.outcome === 'found' && textOf(third.value)).toBe('Befund 3');
    expect(await reads.documentForClinic(taskOf[B]!, callerOf(B), 3)).toEqual({ outcome: 'not-found' });
    expect(await reads.documentForClinic(taskOf[B]!, callerOf(A), 0)).toEqual({ outcome: 'not-found' });

    const small = await documentReads(1_000).documentsForClinic(taskOf[B]!, callerOf(B), { _count: 20, _offset: 1 });
    expect(small.outcome === 'found' && [small.value.items.map(textOf), small.value.next]).toEqual([['Befund 2'], '?_count=20&_offset=2']);
  });
});
