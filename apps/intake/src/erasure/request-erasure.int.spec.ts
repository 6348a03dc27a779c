import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { ClinicRecord, Envelope } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK, type admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { openIntakeDatabase, type IntakeDatabase, prismaRunner } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { admissionCommand, clinicAnswerCommand, documentCommand, testSealedFields } from '../testing';
import { RequestErasureRepository } from './request-erasure.repository';
import { RetentionJob } from './retention-job';

const env = testEnvironment();
const CLINIC = '510000001';
const REFERRER = { partyId: 'referrer-erasure', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const registry = new Map<string, ClinicRecord>([
  [CLINIC, { ik: CLINIC, name: CLINIC, departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] }],
]);
const referrerAgent = { kind: 'referrer' as const, user: REFERRER.partyId, ik: FIXTURE_REQUESTER_IK };

/** Erasing a request's patient data against the real PostgreSQL: what is left, what is told, what is refused after. */
describe('erasing a request', () => {
  const schema = uniqueName('intake_erasure');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let service: IntakeService;
  let erasure: RequestErasureRepository;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const fields = await testSealedFields(prisma, schema);
    const lookup = async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : [])));
    service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, fields), { lookup }, fhirSystems());
    erasure = new RequestErasureRepository(prisma, schema);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const query = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];
  const submission = (options: Parameters<typeof admissionRequestBundle>[0]) => admissionCommand(options, REFERRER);
  const documentOf = (identifier: string) => documentCommand(identifier, REFERRER, { contentType: 'text/plain', text: `Arztbrief ${randomUUID()}` });
  const answerOf = (taskId: string, businessStatus: 'accepted' | 'query') =>
    clinicAnswerCommand({ taskId, clinicIk: CLINIC, businessStatus, note: `Rückfrage ${randomUUID()}` });

  /** A request with a document, answered with a note, then selected with the patient's complete data. */
  async function wholeRequest() {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [CLINIC], notes: ['Z. n. Sturz'] })]);
    await service.handle([documentOf(identifier)]);
    const [task] = await query<{ id: string; request_id: string }>(
      'SELECT t.id, t.request_id FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1',
      [identifier],
    );
    const answer = answerOf(task!.id, 'accepted');
    await service.handle([answer]);
    const [selected] = await service.handle([
      submission({ requestIdentifier: identifier, performerIks: [CLINIC], orderDetail: 'selected-provider', patient: 'complete' }),
    ]);
    expect(selected).toMatchObject({ outcome: 'accepted' });
    return { identifier, taskId: task!.id, requestId: task!.request_id, answer };
  }
  /** What the schema still holds of the request's patient data. */
  const leftOf = async (request: { requestId: string; identifier: string }) => {
    const [row] = await query<{ versions: number; documents: number; notes: number; verdicts: number; unpublishedNotes: number }>(
      `SELECT (SELECT count(*)::int FROM $schema.request_version WHERE request_id = $1) AS versions,
              (SELECT count(*)::int FROM $schema.request_document WHERE request_id = $1) AS documents,
              (SELECT count(*)::int FROM $schema.clinic_task WHERE request_id = $1 AND sealed_notes IS NOT NULL) AS notes,
              (SELECT count(*)::int FROM $schema.inbox_message WHERE request_identifier = $2 AND sealed_verdict IS NOT NULL) AS verdicts,
              (SELECT count(*)::int FROM $schema.outbox_message WHERE envelope #>> '{payload,requestIdentifier}' = $2 AND envelope #> '{payload,task,note}' IS NOT NULL) AS "unpublishedNotes"`,
      [request.requestId, request.identifier],
    );
    return row;
  };
  const erasedMessages = (identifier: string) =>
    query<{ envelope: Envelope }>(
      `SELECT envelope FROM $schema.outbox_message WHERE routing_key = 'request.erased.v1' AND envelope #>> '{payload,requestIdentifier}' = $1`,
      [identifier],
    );
  const deletions = (identifier: string) =>
    query<{ resource: { subtype: { code: string }[] } }>(
      `SELECT resource FROM $schema.audit_events WHERE request_identifier = $1 AND resource #>> '{subtype,0,code}' = 'delete'`,
      [identifier],
    );

  it('deletes the versions and documents, drops the notes and the kept verdicts, and leaves the tombstone', async () => {
    const request = await wholeRequest();
    // No relay runs here: the answer's admission.response is still in the outbox, with the note.
    expect(await leftOf(request)).toEqual({ versions: 2, documents: 1, notes: 1, verdicts: 4, unpublishedNotes: 1 });

    const result = await erasure.erase(
      { identifier: request.identifier, by: { role: 'referrer', partyId: REFERRER.partyId } },
      { agent: referrerAgent, reason: 'requested', correlationId: 'erasure' },
    );

    expect(result).toMatchObject({
      outcome: 'erased',
      tombstone: {
        identifier: request.identifier,
        status: 'active',
        intent: 'order',
        reason: 'requested',
        versions: 2,
        documents: 1,
        tasks: [{ id: request.taskId, clinicIk: CLINIC, status: 'in-progress', businessStatus: 'accepted' }],
      },
    });
    expect(await leftOf(request)).toEqual({ versions: 0, documents: 0, notes: 0, verdicts: 0, unpublishedNotes: 0 });
    expect(await query('SELECT latest_hash FROM $schema.admission_request WHERE identifier = $1', [request.identifier])).toEqual([{ latest_hash: '' }]);
    const [told] = await erasedMessages(request.identifier);
    expect(told?.envelope.payload).toMatchObject({
      referrerPartyId: REFERRER.partyId,
      reason: 'requested',
      tasks: [{ taskId: request.taskId, clinicIk: CLINIC }],
    });
    expect(await deletions(request.identifier)).toHaveLength(1);
    expect(await erasure.tombstone(request.identifier)).toEqual(result.outcome === 'not-found' ? undefined : result.tombstone);
  });

  it('cancels the Tasks still open (nothing can be answered any more), and keeps a selected one in progress', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [CLINIC] })]);
    const before = await query<{ status: string; last_modified: Date }>(
      'SELECT t.status, t.last_modified FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1',
      [identifier],
    );
    expect(before.map((task) => task.status)).toEqual(['requested']);

    const result = await erasure.erase({ identifier }, { agent: referrerAgent, reason: 'requested', correlationId: 'erasure' });

    expect(result).toMatchObject({ outcome: 'erased', tombstone: { status: 'active', tasks: [{ clinicIk: CLINIC, status: 'cancelled' }] } });
    const [after] = await query<{ status: string; cancelled_at: Date | null; last_modified: Date }>(
      'SELECT t.status, t.cancelled_at, t.last_modified FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1',
      [identifier],
    );
    const erasedAt = result.outcome === 'not-found' ? undefined : result.tombstone.erasedAt;
    // Changed at the erasure: a clinic polling its list with `since` sees the tombstone.
    expect(after).toEqual({ status: 'cancelled', cancelled_at: erasedAt, last_modified: erasedAt });
    expect(after!.last_modified.getTime()).toBeGreaterThan(before[0]!.last_modified.getTime());
  });

  it('is idempotent: a second erasure answers the tombstone and records and tells nothing more', async () => {
    const request = await wholeRequest();
    const first = await erasure.erase({ identifier: request.identifier }, { agent: referrerAgent, reason: 'requested', correlationId: 'erasure' });
    const second = await erasure.erase({ identifier: request.identifier }, { agent: referrerAgent, reason: 'requested', correlationId: 'erasure' });

    expect(second).toEqual({ ...first, outcome: 'already-erased' });
    expect(await erasedMessages(request.identifier)).toHaveLength(1);
    expect(await deletions(request.identifier)).toHaveLength(1);
  });

  it("does not find another referrer's request, nor an unknown one, and changes nothing", async () => {
    const request = await wholeRequest();
    expect(
      await erasure.erase(
        { identifier: request.identifier, by: { role: 'referrer', partyId: 'someone-else' } },
        { agent: referrerAgent, reason: 'requested', correlationId: 'erasure' },
      ),
    ).toEqual({ outcome: 'not-found' });
    expect(
      await erasure.erase(
        { identifier: `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}` },
        { agent: referrerAgent, reason: 'requested', correlationId: 'erasure' },
      ),
    ).toEqual({ outcome: 'not-found' });
    // No relay runs here: the answer's admission.response is still in the outbox, with the note.
    expect(await leftOf(request)).toEqual({ versions: 2, documents: 1, notes: 1, verdicts: 4, unpublishedNotes: 1 });
    expect(await erasure.tombstone(request.identifier)).toBeUndefined();
  });

  it('accepts nothing more for an erased request; a redelivered message changes nothing', async () => {
    const request = await wholeRequest();
    await erasure.erase({ identifier: request.identifier }, { agent: referrerAgent, reason: 'retention', correlationId: 'erasure' });

    const verdicts = await service.handle([
      submission({ requestIdentifier: request.identifier, performerIks: [CLINIC], notes: ['noch ein Befund'] }),
      documentOf(request.identifier),
      answerOf(request.taskId, 'query'),
    ]);
    expect(verdicts).toMatchObject([
      { outcome: 'rejected', refusal: 'conflict' },
      { outcome: 'rejected', refusal: 'conflict' },
      { outcome: 'rejected', refusal: 'conflict' },
    ]);
    const [redelivered] = await service.handle([request.answer]);
    expect(redelivered).toMatchObject({ outcome: 'unchanged' });
    expect(await leftOf(request)).toEqual({ versions: 0, documents: 0, notes: 0, verdicts: 0, unpublishedNotes: 0 });
  });

  it('erases, once their retention ended, the requests revoked or selected long enough ago, and no other', async () => {
    const day = 24 * 60 * 60 * 1000;
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * day);
    const [revokedLongAgo, revokedRecently, selectedLongAgo, selectedRecently] = await Promise.all([
      wholeRequest(),
      wholeRequest(),
      wholeRequest(),
      wholeRequest(),
    ]);
    const set = (request: { requestId: string }, status: string, selected: boolean, updatedAt: Date) =>
      query(`UPDATE $schema.admission_request SET status = $2, selected_clinic_ik = CASE WHEN $3 THEN selected_clinic_ik END, updated_at = $4 WHERE id = $1`, [
        request.requestId,
        status,
        selected,
        updatedAt,
      ]);
    // Retention 90 days after the selection, erasure 30 days after that or after a revocation.
    await set(revokedLongAgo, 'revoked', false, at(31));
    await set(revokedRecently, 'revoked', false, at(29));
    await set(selectedLongAgo, 'active', true, at(121));
    await set(selectedRecently, 'active', true, at(119));
    // Every other request of this schema is recent.

    const job = new RetentionJob(erasure, { selectedDays: 90, erasureDelayDays: 30 }, silentLogger());
    expect(await job.run()).toBe(2);

    expect(await erasure.tombstone(revokedLongAgo.identifier)).toMatchObject({ reason: 'retention', status: 'revoked' });
    expect(await erasure.tombstone(selectedLongAgo.identifier)).toMatchObject({ reason: 'retention' });
    expect(await erasure.tombstone(revokedRecently.identifier)).toBeUndefined();
    expect(await erasure.tombstone(selectedRecently.identifier)).toBeUndefined();
    expect(await leftOf(selectedLongAgo)).toEqual({ versions: 0, documents: 0, notes: 0, verdicts: 0, unpublishedNotes: 0 });
    expect(await leftOf(selectedRecently)).toEqual({ versions: 2, documents: 1, notes: 1, verdicts: 4, unpublishedNotes: 1 });
    expect(await job.run()).toBe(0);
  });
});
