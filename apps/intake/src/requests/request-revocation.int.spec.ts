import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { openIntakeDatabase, type IntakeDatabase, prismaRunner } from '../persistence';
import { admissionCommand, clinicAnswerCommand, testSealedFields } from '../testing';
import { AdmissionRequestRepository } from './admission-request.repository';
import { IntakeService } from './intake.service';

const env = testEnvironment();
const A = '510000001';
const B = '510000002';
/** Not in the registry: a Task asking it to answer would be declined at once, with a message to the referrer. */
const C = '510000003';
const referrer = { partyId: 'referrer-revocation', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const orthopaedics = (ik: string): ClinicRecord => ({ ik, name: ik, departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] });
const registry = new Map([
  [A, orthopaedics(A)],
  [B, orthopaedics(B)],
]);

/**
 * "Revoked takes precedence over every other field", as stored and as told to the clinics: what the
 * state machine's table (request-state-machine.spec.ts) cannot see, because the batch applies its
 * decision with the bundle beside it (the automatic declines by the bundle's department, the limits
 * by the kind of change, the clinics each version is sent to). A revocation that also selects or
 * withdraws, names other clinics, asks for a department no clinic offers and carries complete patient
 * data, sent when the request holds as many versions as its limit allows, is stored as the
 * cancellation alone: the request revoked with its intent, no clinic selected, the open Tasks
 * cancelled with their last answers and the version each clinic was sent, no Task for a clinic it
 * names anew, the new version sent to no clinic, and one message to routing that cancels those Tasks
 * and nothing else (no automatic answer).
 */
describe('a revocation carrying other triggers, against the real PostgreSQL', () => {
  const schema = uniqueName('intake_revoke');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let repository: AdmissionRequestRepository;
  const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : []))) };

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

  const query = async <T>(sql: string, values: unknown[]) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];
  const requestOf = async (identifier: string) =>
    (
      await query<{ status: string; intent: string; selected_clinic_ik: string | null; current_version: number }>(
        'SELECT status, intent, selected_clinic_ik, current_version FROM $schema.admission_request WHERE identifier = $1',
        [identifier],
      )
    )[0]!;
  const tasksOf = (identifier: string) =>
    query<{ id: string; clinic_ik: string; status: string; business_status: string | null; sent_version: number }>(
      `SELECT t.id, t.clinic_ik, t.status, t.business_status, t.sent_version
         FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1 ORDER BY t.clinic_ik`,
      [identifier],
    );
  const sentToOf = (identifier: string, version: number) =>
    query<{ sent_to: string[] }>(
      'SELECT v.sent_to FROM $schema.request_version v JOIN $schema.admission_request r ON r.id = v.request_id WHERE r.identifier = $1 AND v.version = $2',
      [identifier, version],
    );
  const lastOutboxId = async () => Number((await query<{ id: string | null }>('SELECT max(id) AS id FROM $schema.outbox_message', []))[0]!.id ?? 0);
  const outboxAfter = (id: number, identifier: string) =>
    query<{ routing_key: string; payload: { change?: string; version?: number; tasks?: { clinicIk: string }[] } }>(
      `SELECT routing_key, envelope -> 'payload' AS payload FROM $schema.outbox_message
        WHERE id > $1 AND envelope #>> '{payload,requestIdentifier}' = $2 ORDER BY id`,
      [id, identifier],
    );

  const byClinic = <T extends { clinicIk: string }>(tasks: readonly T[]) => [...tasks].sort((a, b) => a.clinicIk.localeCompare(b.clinicIk));

  /** The request of each state, its Tasks answered: A accepted, B asked a query; for the order, A selected then. */
  const states = {
    'active/proposal, A accepted, B asked a query': { select: false, supplementRefused: 'too-long' },
    // A supplement is refused here anyway, while a clinic is selected.
    'active/order, A selected, B cancelled': { select: true, supplementRefused: 'conflict' },
  };
  // Without `status: revoked`, the selection is one the proposal takes (A accepted), the withdrawal one the order takes.
  const triggers = {
    'the selection of A': { intent: 'order', orderDetail: 'selected-provider', performerIks: [A] },
    'the withdrawal of A': { intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [A] },
    'supplemented data naming C instead of B': { intent: 'proposal', orderDetail: undefined, performerIks: [A, C] },
  } as const;
  const cells = Object.entries(states).flatMap(([state, { select, supplementRefused }]) =>
    Object.entries(triggers).map(([trigger, fields]) => [state, trigger, select, supplementRefused, fields] as const),
  );

  it.each(cells)(
    'in state %s, a revocation carrying %s is stored and sent as the cancellation alone',
    async (_state, _trigger, select, supplementRefused, fields) => {
      const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
      const setup = new IntakeService(repository, clinics, fhirSystems());
      const submit = (service: IntakeService, options: Parameters<typeof admissionCommand>[0]) =>
        service.handle([admissionCommand({ requestIdentifier: identifier, ...options }, referrer)]);
      expect(await submit(setup, { performerIks: [A, B] })).toMatchObject([{ outcome: 'accepted' }]);
      const [taskA, taskB] = await tasksOf(identifier);
      expect(
        await setup.handle([
          clinicAnswerCommand({ taskId: taskA!.id, clinicIk: A, businessStatus: 'accepted' }),
          clinicAnswerCommand({ taskId: taskB!.id, clinicIk: B, businessStatus: 'query' }),
        ]),
      ).toMatchObject([{ outcome: 'accepted' }, { outcome: 'accepted' }]);
      if (select) {
        expect(await submit(setup, { intent: 'order', orderDetail: 'selected-provider', performerIks: [A] })).toMatchObject([{ outcome: 'accepted' }]);
      }
      const before = { request: await requestOf(identifier), tasks: await tasksOf(identifier), outbox: await lastOutboxId() };
      // The request holds as many versions as it may: a supplement would be refused, a revocation never is.
      const atLimit = new IntakeService(repository, clinics, fhirSystems(), {
        limits: { versions: before.request.current_version, documents: 10, bytes: 10 * 1024 * 1024 },
      });
      expect(await submit(atLimit, { performerIks: [A], notes: ['Fassung über der Grenze'] })).toMatchObject([
        { outcome: 'rejected', issues: [{ code: supplementRefused }] },
      ]);

      const verdicts = await submit(atLimit, {
        status: 'revoked',
        ...fields,
        patient: 'complete',
        // A department neither A nor B offers: a Task asked to answer it would be declined at once.
        specialty: null,
        departmentCode: '0300',
        notes: ['Befund ergänzt', 'Rücknahme'],
      });

      expect(verdicts).toEqual([{ outcome: 'accepted', issues: [], requestIdentifier: identifier }]);
      const version = before.request.current_version + 1;
      expect(await requestOf(identifier)).toEqual({ status: 'revoked', intent: before.request.intent, selected_clinic_ik: null, current_version: version });
      // Every Task cancelled, keeping its last answer and the version its clinic was sent; none for C.
      expect(await tasksOf(identifier)).toEqual(before.tasks.map((task) => ({ ...task, status: 'cancelled' })));
      expect(await sentToOf(identifier, version)).toEqual([{ sent_to: [] }]);
      // One message: routing cancels the open Tasks (in any order), nothing else; no automatic answer.
      const open = before.tasks.filter((task) => task.status !== 'cancelled');
      const messages = await outboxAfter(before.outbox, identifier);
      expect(
        messages.map(({ routing_key: key, payload: { change, version: of, tasks } }) => ({ key, change, version: of, tasks: byClinic(tasks ?? []) })),
      ).toEqual([
        {
          key: 'request.dispatched.v1',
          change: 'revoked',
          version,
          tasks: open.map((task) => ({ taskId: task.id, clinicIk: task.clinic_ik, action: 'cancelled' })),
        },
      ]);
    },
  );
});
