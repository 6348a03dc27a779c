import { randomUUID } from 'node:crypto';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { Pool } from 'pg';
import { AdmissionOverdueV1, type ClinicRecord, type FhirTask } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK, type admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, clinicClaims, localKeys, newSigningKey, referrerClaims } from '@bedrequest/tokens/testing';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase, type SealedFields } from '../persistence';
import { AdmissionRequestRepository, IntakeService, type IntakeCommand } from '../requests';
import { admissionCommand, clinicAnswerCommand, testSealedFields } from '../testing';
import { TaskReadRepository, toFhirTask } from '../tasks';
import { parseTaskSearch } from '../tasks/task-search';
import { OverdueSweep } from './overdue-sweep';
import { ReferrerSettingsRepository } from './referrer-settings.repository';
import { referrerSettingsRouter } from './referrer-settings.router';

const env = testEnvironment();
const systems = fhirSystems();
const A = '510000001';
const B = '510000003';
const referrer = { partyId: `referrer-deadline-${randomUUID()}`, ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const registry = new Map<string, ClinicRecord>([A, B].map((ik) => [ik, { ik, name: ik, departments: [{ code: '2300', specialty: 'x', display: 'x' }] }]));
const logger = pino({ level: 'silent' });

/** A bundle of the fixture with the answer-deadline extension when `deadline` is given, as the gateway sends it. */
function submission(identifier: string, deadline?: string, options: Parameters<typeof admissionRequestBundle>[0] = {}): IntakeCommand {
  return admissionCommand({ requestIdentifier: identifier, performerIks: [A, B], ...options }, referrer, deadline);
}

/**
 * Answer deadlines (docs/api.md, "Answer deadlines") against the real PostgreSQL: the party's
 * default, a deadline moved by an update, the overdue sweep of two replicas at once, its message,
 * its removal by an answer, and the `overdue` search.
 */
describe('answer deadlines and overdue Tasks', () => {
  const schema = uniqueName('intake_deadline');
  let prisma: IntakeDatabase;
  let otherPrisma: IntakeDatabase;
  let pool: Pool;
  let fields: SealedFields;
  let settings: ReferrerSettingsRepository;
  let reads: TaskReadRepository;
  let clock = new Date('2026-12-24T09:00:00.000Z');
  let service: IntakeService;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    otherPrisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    fields = await testSealedFields(prisma, schema);
    settings = new ReferrerSettingsRepository(prisma, schema, { workingDays: 2, holidays: 'DE' });
    reads = new TaskReadRepository(prisma, schema, fields);
    const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : []))) };
    service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, fields), clinics, systems, {
      now: () => clock,
      answerDeadlineRules: (partyIds) => settings.rulesOf(partyIds),
    });
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await otherPrisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const newIdentifier = () => `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const query = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];
  const tasksOf = (identifier: string) =>
    query<{ id: string; clinic_ik: string; answer_deadline: Date | null; overdue_at: Date | null }>(
      'SELECT t.id, t.clinic_ik, t.answer_deadline, t.overdue_at FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1 ORDER BY t.clinic_ik',
      [identifier],
    );
  const fhirTaskOf = async (taskId: string): Promise<FhirTask> => {
    const task = await reads.findTask(taskId);
    if (!task) throw new Error(`no Task ${taskId}`);
    return toFhirTask(task, systems, { authors: false });
  };
  const overdueMessages = (identifier: string) =>
    query<{ envelope: { payload: unknown } }>(
      `SELECT envelope FROM $schema.outbox_message WHERE routing_key = $1 AND envelope #>> '{payload,requestIdentifier}' = $2 ORDER BY id`,
      [AdmissionOverdueV1.routingKey, identifier],
    );
  const sweep = (database: IntakeDatabase) => new OverdueSweep(database, schema, fields, systems, { logger, intervalMs: 1000 });

  it("reads and sets the party's settings through intake's internal API with the forwarded token: the service's default first, 400 naming a field, 403 for a clinic, 401 without a token", async () => {
    const key = await newSigningKey();
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
    const own = await accessToken(key, { sub: `party-${randomUUID()}`, claims: referrerClaims });
    const clinic = await accessToken(key, { claims: clinicClaims });
    const http = express().use(referrerSettingsRouter(settings, verifier, silentLogger()));
    const path = '/internal/referrer-workspace/settings';

    expect((await request(http).get(path).set('authorization', `Bearer ${own}`)).body).toEqual({ answerDeadline: { workingDays: 2, holidays: 'DE' } });
    const body = { answerDeadline: { workingDays: 5, holidays: 'DE-NW' } };
    const put = await request(http).put(path).set('authorization', `Bearer ${own}`).send(body);
    expect([put.status, put.body]).toEqual([200, body]);
    expect((await request(http).get(path).set('authorization', `Bearer ${own}`)).body).toEqual(body);
    const bad = await request(http)
      .put(path)
      .set('authorization', `Bearer ${own}`)
      .send({ answerDeadline: { workingDays: 11, holidays: 'DE' } });
    expect([bad.status, bad.body.error, bad.body.message]).toEqual([400, 'invalid_request', expect.stringContaining('answerDeadline.workingDays')]);
    expect((await request(http).get(path).set('authorization', `Bearer ${clinic}`)).status).toBe(403);
    expect((await request(http).get(path)).status).toBe(401);
  });

  it("gives a new request without a deadline the party's default: received Thursday 24 December 10:00 with DE-BW and two working days, Tuesday 29 December 10:00", async () => {
    await settings.write(referrer.partyId, { answerDeadline: { workingDays: 2, holidays: 'DE-BW' } }, clock);
    expect(await settings.read(referrer.partyId)).toEqual({ answerDeadline: { workingDays: 2, holidays: 'DE-BW' } });
    const identifier = newIdentifier();
    expect((await service.handle([submission(identifier)]))[0]).toMatchObject({ outcome: 'accepted' });

    const tasks = await tasksOf(identifier);
    expect(tasks.map((task) => task.answer_deadline?.toISOString())).toEqual(['2026-12-29T09:00:00.000Z', '2026-12-29T09:00:00.000Z']);
    expect((await fhirTaskOf(tasks[0]!.id)).restriction).toEqual({ period: { end: '2026-12-29T09:00:00.000Z' } });
  });

  it('takes a given deadline, keeps it on an update without one, moves it on an update with another, and refuses one not after receipt where it changes', async () => {
    const identifier = newIdentifier();
    await service.handle([submission(identifier, '2026-12-28T16:00:00+01:00')]);
    expect((await tasksOf(identifier)).map((task) => task.answer_deadline?.toISOString())).toEqual(['2026-12-28T15:00:00.000Z', '2026-12-28T15:00:00.000Z']);

    await service.handle([submission(identifier, undefined, { notes: ['ergänzt'] })]);
    expect((await tasksOf(identifier))[0]!.answer_deadline?.toISOString()).toBe('2026-12-28T15:00:00.000Z');

    await service.handle([submission(identifier, '2026-12-30T12:00:00Z', { notes: ['verschoben'] })]);
    const moved = await tasksOf(identifier);
    expect(moved.map((task) => task.answer_deadline?.toISOString())).toEqual(['2026-12-30T12:00:00.000Z', '2026-12-30T12:00:00.000Z']);
    expect((await fhirTaskOf(moved[1]!.id)).restriction?.period.end).toBe('2026-12-30T12:00:00.000Z');

    const [refused] = await service.handle([submission(identifier, '2026-12-24T08:59:59Z', { notes: ['zu früh'] })]);
    expect(refused).toMatchObject({
      outcome: 'rejected',
      refusal: 'invalid',
      issues: [{ code: 'value', expression: 'Bundle.entry[0].resource.extension[0].valueDateTime' }],
    });
    expect((await tasksOf(identifier))[0]!.answer_deadline?.toISOString()).toBe('2026-12-30T12:00:00.000Z');
  });

  describe('the overdue sweep', () => {
    const identifier = newIdentifier();
    let deadline: Date;

    beforeAll(async () => {
      clock = new Date();
      deadline = new Date(clock.getTime() + 1000);
      await service.handle([submission(identifier, deadline.toISOString())]);
      await new Promise((resolve) => setTimeout(resolve, deadline.getTime() - Date.now() + 100));
    });

    it('marks each Task past its deadline once, whichever of two sweepers racing on the same database takes it, with one AdmissionOverdueV1 each', async () => {
      const marked = await Promise.all([sweep(prisma).run(), sweep(otherPrisma).run(), sweep(prisma).markBatch(), sweep(otherPrisma).markBatch()]);
      expect(marked.reduce((sum, count) => sum + count, 0)).toBe(2);
      const tasks = await tasksOf(identifier);
      expect(tasks.every((task) => task.overdue_at !== null)).toBe(true);

      const messages = await overdueMessages(identifier);
      expect(messages).toHaveLength(2);
      const payloads = messages.map((message) => AdmissionOverdueV1.payload.parse(message.envelope.payload));
      expect(payloads.map((payload) => payload.task.id).sort()).toEqual(tasks.map((task) => task.id).sort());
      for (const payload of payloads) {
        expect(payload).toMatchObject({ referrerPartyId: referrer.partyId, requestIdentifier: identifier, deadline: deadline.toISOString() });
        expect(payload.task).toMatchObject({
          status: 'requested',
          extension: [{ url: systems.answerOverdueExtension, valueDateTime: expect.any(String) }],
          restriction: { period: { end: deadline.toISOString() } },
        });
      }
      // The Task as read carries the mark too, and the sweep finds nothing more to do.
      expect((await fhirTaskOf(tasks[0]!.id)).extension).toEqual([{ url: systems.answerOverdueExtension, valueDateTime: tasks[0]!.overdue_at!.toISOString() }]);
      expect(await sweep(prisma).run()).toBe(0);
      expect(await overdueMessages(identifier)).toHaveLength(2);
    });

    it('finds exactly the overdue Tasks with overdue=true, and the others with overdue=false', async () => {
      const viewer = { role: 'referrer' as const, partyId: referrer.partyId };
      const searched = async (value: string) => {
        const parsed = parseTaskSearch({ overdue: value, _count: '500' }, viewer);
        if (!parsed.ok) throw new Error('refused');
        return (await reads.search(parsed.search)).tasks.map((task) => task.id).sort();
      };
      const overdueIds = (await query<{ id: string }>('SELECT id FROM $schema.clinic_task WHERE overdue_at IS NOT NULL')).map((row) => row.id).sort();
      const all = (await query<{ id: string }>('SELECT id FROM $schema.clinic_task')).map((row) => row.id).sort();
      expect(await searched('true')).toEqual(overdueIds);
      expect(overdueIds).toHaveLength(2);
      expect(await searched('false')).toEqual(all.filter((id) => !overdueIds.includes(id)));
    });

    it("removes the mark when the clinic answers, and keeps its history's entry", async () => {
      const [task] = await tasksOf(identifier);
      clock = new Date();
      await service.handle([clinicAnswerCommand({ taskId: task!.id, clinicIk: task!.clinic_ik, businessStatus: 'accepted' })]);
      const [answered] = await tasksOf(identifier);
      expect(answered!.overdue_at).toBeNull();
      expect((await fhirTaskOf(task!.id)).extension).toBeUndefined();
      const [row] = await query<{ sealed_history: Buffer }>('SELECT sealed_history FROM $schema.clinic_task WHERE id = $1', [task!.id]);
      const history = await fields.open<{ kind: string; deadline?: string }[]>(`clinic_task:history:${task!.id}`, row!.sealed_history);
      expect(history.filter((entry) => entry.kind === 'overdue')).toEqual([expect.objectContaining({ deadline: deadline.toISOString() })]);
    });

    it('removes the mark when an update moves the deadline into the future, and publishes once more past the new deadline', async () => {
      clock = new Date();
      const later = new Date(clock.getTime() + 1000);
      await service.handle([submission(identifier, later.toISOString(), { notes: ['neue Frist'] })]);
      // The supplement asks both clinics again (docs/decisions.md, "Requests"): both wait, neither is overdue.
      expect(await tasksOf(identifier)).toEqual([
        expect.objectContaining({ overdue_at: null, answer_deadline: later }),
        expect.objectContaining({ overdue_at: null, answer_deadline: later }),
      ]);
      await new Promise((resolve) => setTimeout(resolve, later.getTime() - Date.now() + 100));
      expect(await sweep(prisma).run()).toBe(2);
      const messages = (await overdueMessages(identifier)).map((message) => AdmissionOverdueV1.payload.parse(message.envelope.payload));
      expect(messages.map((message) => message.deadline)).toEqual([deadline, deadline, later, later].map((at) => at.toISOString()));
    });
  });
});
