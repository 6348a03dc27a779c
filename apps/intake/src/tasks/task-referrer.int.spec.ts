import { Client } from 'pg';
import { fhirSystems } from '@bedrequest/fhir-model';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { AuditTrail, AuditTrailRepository } from '../audit';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase } from '../persistence';
import { testSealedFields } from '../testing';
import { TaskReadRepository } from './task-read.repository';
import { TaskReadService } from './task-read.service';

const env = testEnvironment();

/**
 * A Task carries its request's referrer (migration 0017), which the referrer's Task search pages by.
 * An intake of a release before it writes Tasks without one, during a rolling update or after a
 * rollback (docs/compatibility.md): migration 0018 fills it when that transaction commits.
 */
describe("a Task written without its request's referrer, as a release before migration 0017 writes it", () => {
  const schema = uniqueName('intake');
  const client = new Client({ connectionString: env.databaseUrl });
  let prisma: IntakeDatabase;
  let tasks: TaskReadService;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    tasks = new TaskReadService(
      new TaskReadRepository(prisma, schema, await testSealedFields(prisma, schema)),
      fhirSystems('https://bedrequest.example.org'),
      new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema)),
    );
    await client.connect();
  });

  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
    await prisma.$disconnect();
  });

  /** A request and its Tasks in one statement, as the earlier release's batch creates them: the Task's columns of 1.0 only. */
  const writeAsEarlierRelease = (referrer: string, identifier: string) =>
    client.query(
      `WITH request AS (
         INSERT INTO "${schema}".admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
         VALUES (gen_random_uuid(), $1, $2, '260000001', 'active', 'proposal', 1, 'hash', now()) RETURNING id)
       INSERT INTO "${schema}".clinic_task (id, request_id, clinic_ik, status, sent_version, authored_on, last_modified)
       SELECT gen_random_uuid(), request.id, clinic.ik, 'requested', 1, now(), now() FROM request, (VALUES ('510000001'), ('510000002')) AS clinic(ik)`,
      [identifier, referrer],
    );
  const referrersOf = async (identifier: string) =>
    (
      await client.query<{ referrer_party_id: string | null }>(
        `SELECT t.referrer_party_id FROM "${schema}".clinic_task t JOIN "${schema}".admission_request r ON r.id = t.request_id WHERE r.identifier = $1`,
        [identifier],
      )
    ).rows.map((row) => row.referrer_party_id);

  it('holds none until its transaction commits, then its request’s, and the referrer finds it', async () => {
    const identifier = 'https://hospital.example/fhir/ServiceRequest/earlier-release-1';
    await client.query('BEGIN');
    await writeAsEarlierRelease('hospital-a', identifier);
    expect(await referrersOf(identifier)).toEqual([null, null]);
    await client.query('COMMIT');

    expect(await referrersOf(identifier)).toEqual(['hospital-a', 'hospital-a']);
    const found = await tasks.search({}, { viewer: { role: 'referrer', partyId: 'hospital-a' }, user: 'reader' }, { base: '', path: '/api/v2/fhir/Task' });
    expect(found.ok && found.bundle.total).toBe(2);
    const other = await tasks.search({}, { viewer: { role: 'referrer', partyId: 'hospital-b' }, user: 'reader' }, { base: '', path: '/api/v2/fhir/Task' });
    expect(other.ok && other.bundle.total).toBe(0);
  });

  it("keeps the referrer a writer of this release gave, even one that is not its request's", async () => {
    const identifier = 'https://hospital.example/fhir/ServiceRequest/this-release-1';
    await client.query(
      `WITH request AS (
         INSERT INTO "${schema}".admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
         VALUES (gen_random_uuid(), $1, 'hospital-c', '260000001', 'active', 'proposal', 1, 'hash', now()) RETURNING id)
       INSERT INTO "${schema}".clinic_task (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified)
       SELECT gen_random_uuid(), request.id, 'as-given', '510000001', 'requested', 1, now(), now() FROM request`,
      [identifier],
    );
    expect(await referrersOf(identifier)).toEqual(['as-given']);
  });
});
