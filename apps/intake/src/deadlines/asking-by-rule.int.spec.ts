import { randomUUID } from 'node:crypto';
import express from 'express';
import pino from 'pino';
import request from 'supertest';
import { Pool } from 'pg';
import { RequestDispatchedV1, type ClinicRecord, type EscalationRule } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, localKeys, newSigningKey, referrerClaims } from '@bedrequest/tokens/testing';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase, type SealedFields } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { admissionCommand, clinicAnswerCommand, testSealedFields } from '../testing';
import { TaskReadRepository, toFhirTask } from '../tasks';
import { EscalationSweep } from './escalation-sweep';
import { OverdueSweep } from './overdue-sweep';
import { ReferrerSettingsRepository } from './referrer-settings.repository';
import { referrerSettingsRouter } from './referrer-settings.router';

const env = testEnvironment();
const systems = fhirSystems();
const logger = pino({ level: 'silent' });
const ORTHOPAEDICS = '2300';
/** Berlin Mitte, the rule's origin. */
const ORIGIN = { postalCode: '10115', latitude: 52.532, longitude: 13.384 };

const clinic = (ik: string, department: string, coordinates?: { latitude: number; longitude: number }): ClinicRecord => ({
  ik,
  name: `Klinik ${ik}`,
  departments: [{ code: department, specialty: 'x', display: 'x' }],
  ...(coordinates ? { coordinates } : {}),
});
// Named by the request: A, B. The party's list: L1 (no orthopaedics), L2, and A (asked already).
const A = '510000001';
const B = '510000002';
const L1 = '520000001';
const L2 = '520000002';
// The registry's others, their IKs against their distance: one without coordinates, Leipzig (about
// 150 km), Potsdam (about 25 km), and Hamburg's clinic without the department.
const NOWHERE = '530000001';
const LEIPZIG = '530000002';
const POTSDAM = '530000003';
const HAMBURG_NEUROLOGY = '530000004';
const registry: ClinicRecord[] = [
  clinic(A, ORTHOPAEDICS),
  clinic(B, ORTHOPAEDICS),
  clinic(L1, '2800'),
  clinic(L2, ORTHOPAEDICS, { latitude: 48.137, longitude: 11.575 }),
  clinic(LEIPZIG, ORTHOPAEDICS, { latitude: 51.34, longitude: 12.375 }),
  clinic(POTSDAM, ORTHOPAEDICS, { latitude: 52.39, longitude: 13.065 }),
  clinic(HAMBURG_NEUROLOGY, '2800', { latitude: 53.55, longitude: 10.0 }),
  clinic(NOWHERE, ORTHOPAEDICS),
];

/**
 * Asking by rule (docs/api.md, "Asking by rule") against the real PostgreSQL: the rule in the
 * party's settings, the clinics it asks (the party's list first, then the registry nearest first,
 * only with the request's department), each once with two replicas racing, a decline after the
 * deadline, and the request's version kept.
 */
describe('asking further clinics by rule', () => {
  const schema = uniqueName('intake_escalation');
  let prisma: IntakeDatabase;
  let otherPrisma: IntakeDatabase;
  let pool: Pool;
  let fields: SealedFields;
  let settings: ReferrerSettingsRepository;
  let reads: TaskReadRepository;
  let clock = new Date('2027-01-11T08:00:00.000Z');
  let service: IntakeService;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    otherPrisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    fields = await testSealedFields(prisma, schema);
    settings = new ReferrerSettingsRepository(prisma, schema, { workingDays: 2, holidays: 'DE' });
    reads = new TaskReadRepository(prisma, schema, fields);
    const byIk = new Map(registry.map((entry) => [entry.ik, entry]));
    const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (byIk.has(ik) ? [[ik, byIk.get(ik)!] as const] : []))) };
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

  const newParty = () => ({ partyId: `referrer-rule-${randomUUID()}`, ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE });
  const newIdentifier = () => `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const query = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];
  const tasksOf = (identifier: string) =>
    query<{ id: string; clinic_ik: string; status: string; sent_version: number; answer_deadline: Date; asked_by_rule: { source: string } | null }>(
      `SELECT t.id, t.clinic_ik, t.status, t.sent_version, t.answer_deadline, t.asked_by_rule
         FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1 ORDER BY t.authored_on, t.clinic_ik`,
      [identifier],
    );
  const versionsOf = async (identifier: string) =>
    (
      await query<{ n: number }>(
        'SELECT count(*)::int AS n FROM $schema.request_version v JOIN $schema.admission_request r ON r.id = v.request_id WHERE r.identifier = $1',
        [identifier],
      )
    )[0]!.n;
  const dispatches = (identifier: string) =>
    query<{ envelope: { payload: RequestDispatchedV1 } }>(
      `SELECT envelope FROM $schema.outbox_message WHERE routing_key = $1 AND envelope #>> '{payload,requestIdentifier}' = $2 ORDER BY id`,
      [RequestDispatchedV1.routingKey, identifier],
    );
  const overdue = (database: IntakeDatabase) => new OverdueSweep(database, schema, fields, systems, { logger, intervalMs: 1000, now: () => clock });
  const escalation = (database: IntakeDatabase) =>
    new EscalationSweep(
      database,
      schema,
      fields,
      systems,
      { clinics: { list: async () => registry }, deadlineRule: (partyId) => settings.ruleOf(partyId) },
      { logger, intervalMs: 1000, now: () => clock },
    );
  const rule = (overrides: Partial<EscalationRule> = {}): EscalationRule => ({
    whenOpenBelow: 2,
    askNext: 3,
    clinics: [L1, L2, A],
    origin: ORIGIN,
    ...overrides,
  });
  /** A request to A and B of the party, its deadline (the party's two working days) passed and marked: the clinics still open are none. */
  const pastDeadline = async (party: ReturnType<typeof newParty>, identifier: string) => {
    expect((await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A, B] }, party)]))[0]).toMatchObject({
      outcome: 'accepted',
    });
    clock = new Date(clock.getTime() + 7 * 86_400_000);
    await overdue(prisma).run();
  };

  it('reads, sets, keeps and removes the rule through the settings API, and refuses a rule out of bounds naming the field', async () => {
    const key = await newSigningKey();
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
    const token = `Bearer ${await accessToken(key, { sub: `party-${randomUUID()}`, claims: referrerClaims })}`;
    const http = express().use(referrerSettingsRouter(settings, verifier, silentLogger()));
    const path = '/internal/referrer-workspace/settings';
    const answerDeadline = { workingDays: 2, holidays: 'DE-BE' };

    const put = await request(http).put(path).set('authorization', token).send({ answerDeadline, escalation: rule() });
    expect([put.status, put.body]).toEqual([200, { answerDeadline, escalation: rule() }]);
    const kept = await request(http)
      .put(path)
      .set('authorization', token)
      .send({ answerDeadline: { ...answerDeadline, workingDays: 3 } });
    expect(kept.body).toEqual({ answerDeadline: { ...answerDeadline, workingDays: 3 }, escalation: rule() });
    for (const [escalation, field] of [
      [rule({ whenOpenBelow: 0 }), 'escalation.whenOpenBelow'],
      [rule({ askNext: 11 }), 'escalation.askNext'],
      [rule({ clinics: Array.from({ length: 51 }, (_, index) => String(600000000 + index)) }), 'escalation.clinics'],
      [rule({ clinics: [L1, L1] }), 'escalation.clinics'],
      [rule({ origin: { ...ORIGIN, postalCode: '1011' } }), 'escalation.origin.postalCode'],
      [rule({ origin: { ...ORIGIN, latitude: 91 } }), 'escalation.origin.latitude'],
      [{ ...rule(), radiusKm: 50 }, 'escalation'],
    ] as const) {
      const bad = await request(http).put(path).set('authorization', token).send({ answerDeadline, escalation });
      expect([bad.status, bad.body.error, bad.body.message]).toEqual([400, 'invalid_request', expect.stringContaining(field)]);
    }
    const removed = await request(http).put(path).set('authorization', token).send({ answerDeadline, escalation: null });
    expect(removed.body).toEqual({ answerDeadline });
    expect((await request(http).get(path).set('authorization', token)).body).toEqual({ answerDeadline });
  });

  it("asks the party's listed clinics with the department first, then the registry's nearest first, each once with two replicas racing, keeping the request's version", async () => {
    const party = newParty();
    await settings.write(party.partyId, { answerDeadline: { workingDays: 2, holidays: 'DE' }, escalation: rule() }, clock);
    const identifier = newIdentifier();
    await pastDeadline(party, identifier);

    const asked = await Promise.all([escalation(prisma).run(), escalation(otherPrisma).run()]);
    expect(asked[0]! + asked[1]!).toBe(3);
    const tasks = await tasksOf(identifier);
    const byRule = tasks.filter((task) => task.asked_by_rule);
    expect(byRule.map((task) => [task.clinic_ik, task.asked_by_rule?.source])).toEqual([
      [L2, 'list'],
      [LEIPZIG, 'registry'],
      [POTSDAM, 'registry'],
    ]);
    // Sent the current version, with a fresh deadline: two working days from now (Monday 18 January 2027, 09:00 Berlin).
    expect(byRule.map((task) => [task.status, task.sent_version, task.answer_deadline.toISOString()])).toEqual(
      Array(3).fill(['requested', 1, '2027-01-20T08:00:00.000Z']),
    );
    expect(await versionsOf(identifier)).toBe(1);
    const [, byRuleDispatch] = (await dispatches(identifier)).map((row) => row.envelope.payload);
    expect(byRuleDispatch).toMatchObject({ version: 1, change: 'supplemented', departmentCode: ORTHOPAEDICS });
    // In the order asked: the list, then nearest first.
    expect(byRuleDispatch?.tasks.map((dispatched) => dispatched.clinicIk)).toEqual([L2, POTSDAM, LEIPZIG]);
    expect(new Set(byRuleDispatch?.tasks.map((dispatched) => dispatched.taskId))).toEqual(new Set(byRule.map((row) => row.id)));
    expect(await dispatches(identifier)).toHaveLength(2);
    const task = await reads.findTask(byRule[0]!.id);
    expect(toFhirTask(task!, systems, { authors: false }).extension).toEqual([{ url: systems.askedByRuleExtension, valueCode: 'list' }]);
    const audit = await query<{ n: number }>(
      `SELECT count(*)::int AS n FROM $schema.audit_events WHERE agent_ik IS NULL AND resource::text LIKE '%asked-by-rule%' AND resource::text LIKE $1`,
      [`%${byRule[0]!.id}%`],
    );
    expect(audit[0]!.n).toBe(1);

    // Nothing changed since: a further run asks nobody.
    expect(await escalation(prisma).run()).toBe(0);
    // The three asked do not answer by their deadline either: the last clinic with the department, the one without coordinates.
    clock = new Date(clock.getTime() + 7 * 86_400_000);
    await overdue(prisma).run();
    expect(await Promise.all([escalation(prisma).run(), escalation(otherPrisma).run()])).toEqual(expect.arrayContaining([1, 0]));
    expect((await tasksOf(identifier)).map((row) => row.clinic_ik)).toEqual([A, B, L2, LEIPZIG, POTSDAM, NOWHERE]);
    expect(await escalation(prisma).run()).toBe(0);
    expect(await versionsOf(identifier)).toBe(1);
  });

  it('asks after a decline past the deadline; the hospital resending the current version is a retry, and its supplement reaches the clinics the rule asked', async () => {
    const party = newParty();
    await settings.write(
      party.partyId,
      { answerDeadline: { workingDays: 2, holidays: 'DE' }, escalation: rule({ whenOpenBelow: 1, askNext: 1, clinics: [] }) },
      clock,
    );
    const identifier = newIdentifier();
    const sent = admissionCommand({ requestIdentifier: identifier, performerIks: [A, B] }, party);
    await service.handle([sent]);
    const [a] = await tasksOf(identifier);
    await service.handle([clinicAnswerCommand({ taskId: a!.id, clinicIk: A, businessStatus: 'accepted' })]);
    clock = new Date(clock.getTime() + 7 * 86_400_000);
    await overdue(prisma).run();
    // A accepted: one clinic is still open, not fewer than one.
    expect(await escalation(prisma).run()).toBe(0);

    await service.handle([clinicAnswerCommand({ taskId: a!.id, clinicIk: A, businessStatus: 'declined' })]);
    expect(await escalation(prisma).run()).toBe(1);
    const asked = (await tasksOf(identifier)).find((task) => task.asked_by_rule);
    expect(asked).toMatchObject({ clinic_ik: POTSDAM, sent_version: 1 });

    expect((await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A, B] }, party)]))[0]).toMatchObject({
      outcome: 'unchanged',
    });
    await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A, B], notes: ['Befund ergänzt'] }, party)]);
    expect((await tasksOf(identifier)).map((task) => [task.clinic_ik, task.sent_version])).toEqual([
      [A, 2],
      [B, 2],
      [POTSDAM, 2],
    ]);
  });

  it("refuses a hospital's version decided before the rule asked a clinic, so that its retry reaches that clinic too", async () => {
    const party = newParty();
    await settings.write(
      party.partyId,
      { answerDeadline: { workingDays: 2, holidays: 'DE' }, escalation: rule({ whenOpenBelow: 1, askNext: 1, clinics: [] }) },
      clock,
    );
    const identifier = newIdentifier();
    await pastDeadline(party, identifier);
    // The batch reads the request, then the rule asks before the batch writes.
    const repository = new AdmissionRequestRepository(prismaRunner(prisma), schema, fields);
    const racing = Object.assign(Object.create(repository) as AdmissionRequestRepository, {
      load: async (keys: Parameters<AdmissionRequestRepository['load']>[0]) => {
        const loaded = await repository.load(keys);
        await escalation(otherPrisma).run();
        expect((await tasksOf(identifier)).map((task) => task.clinic_ik)).toEqual([A, B, POTSDAM]);
        return loaded;
      },
    });
    const byIk = new Map(registry.map((entry) => [entry.ik, entry]));
    const raced = new IntakeService(racing, { lookup: async (iks: readonly string[]) => new Map(iks.map((ik) => [ik, byIk.get(ik)!] as const)) }, systems, {
      now: () => clock,
    });
    const supplement = admissionCommand({ requestIdentifier: identifier, performerIks: [A, B], notes: ['Befund ergänzt'] }, party);
    await expect(raced.handle([supplement])).rejects.toThrow(/concurrent change: requests/);

    await service.handle([supplement]);
    expect((await tasksOf(identifier)).map((task) => [task.clinic_ik, task.sent_version])).toEqual([
      [A, 2],
      [B, 2],
      [POTSDAM, 2],
    ]);
  });
});
