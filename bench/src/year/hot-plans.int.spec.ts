import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { declareTopology, messageCatalog, type ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { Broker, declareBrokerTopology, OutboxRelay } from '@bedrequest/messaging';
import { createPrismaAdapter } from '@bedrequest/persistence';
import { deleteBrokerTopology, silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { PrismaClient as AuthPrisma } from '../../../apps/auth/src/generated/prisma/client';
import { PartyRepository } from '../../../apps/auth/src/parties/party.repository';
import { PartyMemberRepository } from '../../../apps/auth/src/parties/party-members.repository';
import { RevocationRepository } from '../../../apps/auth/src/token/revocation.repository';
import { UserRepository } from '../../../apps/auth/src/users/user.repository';
import { AnswerStatisticsRepository } from '../../../apps/intake/src/answer-statistics/answer-statistics.repository';
import { AuditAnchors, AuditTrail, AuditTrailRepository } from '../../../apps/intake/src/audit';
import { ClinicTaskReadsRepository, ClinicTaskReadsService } from '../../../apps/intake/src/clinic-tasks';
import { ClinicTaskListQuery } from '../../../apps/intake/src/clinic-tasks/clinic-task-list-query';
import { ClinicWorkspaceRepository } from '../../../apps/intake/src/clinic-workspace';
import { EscalationSweep, OverdueSweep, ReferrerSettingsRepository } from '../../../apps/intake/src/deadlines';
import { RequestErasureRepository, RetentionJob } from '../../../apps/intake/src/erasure';
import { PrismaClient as IntakePrisma } from '../../../apps/intake/src/generated/prisma/client';
import { MailOutboxRepository } from '../../../apps/intake/src/mail';
import { openSealedFields, prismaRunner } from '../../../apps/intake/src/persistence';
import { ReferrerWorkspaceRepository } from '../../../apps/intake/src/referrer-workspace';
import { AdmissionRequestRepository, IntakeService } from '../../../apps/intake/src/requests';
import { TaskReadRepository, TaskReadService } from '../../../apps/intake/src/tasks';
import { admissionCommand, clinicAnswerCommand } from '../../../apps/intake/src/testing';
import { DeliveryRepository } from '../../../apps/notifier/src/delivery/delivery.repository';
import { ADMISSION_RESPONSE_EVENT } from '../../../apps/notifier/src/events/notifier.consumer';
import { EventRepository } from '../../../apps/notifier/src/events/event.repository';
import { PrismaClient as NotifierPrisma } from '../../../apps/notifier/src/generated/prisma/client';
import { notifierTables } from '../../../apps/notifier/src/persistence/database';
import { openSealedFields as openNotifierFields } from '../../../apps/notifier/src/persistence/sealed-fields';
import { SubscriptionRepository } from '../../../apps/notifier/src/subscriptions/subscription.repository';
import { BedCapacityRepository } from '../../../apps/routing/src/beds/bed-capacity.repository';
import { DispatchRepository } from '../../../apps/routing/src/dispatch/dispatch.repository';
import { PrismaClient as RoutingPrisma } from '../../../apps/routing/src/generated/prisma/client';
import { ClinicRepository } from '../../../apps/routing/src/registry/clinic.repository';
import { BENCH_PARTY, benchBundle } from './bench-party';
import { capturePgQueries, explainable, planOf, planScans, sequentialScans, unboundedReads, type CapturedStatement, type Scan } from './statement-capture';
import { DEFAULT_SCHEMAS, type YearSchemas } from './year-profile';
import { seedYear } from './year-seed';

const env = testEnvironment();
/**
 * The year's template at scale 1 (year-template.ts; its default schemas): the statements captured on
 * the test's own seed are planned there (EXPLAIN alone: nothing is run, the template stays as it
 * is), and its plans as chosen are the verdict.
 */
const wholeYear = process.env.YEAR_PLANS_DATABASE_URL;
const databaseUrl = env.databaseUrl;

/**
 * The tables that grow with the service's history (a year of data; docs/data-protection.md,
 * "Retention and erasure", says what is kept how long): a statement that reads one of them whole
 * slows down year by year.
 */
const GROWING = new Set([
  // intake
  'admission_request',
  'clinic_task',
  'request_version',
  'request_document',
  'request_erasure',
  'inbox_message',
  'outbox_message',
  'audit_events',
  'audit_anchors',
  'clinic_task_workspace',
  'clinic_internal_note',
  'referrer_case_number',
  'referrer_draft',
  'referrer_ready_for_transfer',
  'answer_statistic',
  'mail_outbox',
  // routing (inbox_message, outbox_message and request_erasure above too)
  'routed_task',
  'clinic_notification',
  'bed_capacity',
  'bed_hold',
  // notifier (inbox_message and request_erasure above too)
  'delivery',
  'delivery_attempt',
]);
/**
 * Not growing, and why a sequential scan of them is no defect: they are as large as the population
 * of parties and clinics, or a handful of keys, whatever the year holds. Listed so that a table
 * added to a schema is a decision: the test fails on a table in neither list.
 */
const FIXED = new Map([
  ['_migrations', 'one row per migration'],
  ['data_key', 'the data keys: one per rotation'],
  ['fingerprint_key', 'one row'],
  ['development_kek', 'one row outside production'],
  ['record_signing_key', 'the record signing keys: one per rotation'],
  ['referrer_settings', 'one row per referrer party at most'],
  ['clinic', "routing's registry: one row per clinic"],
  ['subscription', 'one per party and event type'],
  ['party', 'the parties'],
  ['user_account', "the parties' people"],
  ['system_client', "the parties' software"],
  ['signing_key', "auth's token keys: one per rotation"],
]);

/**
 * Reads no index bounds, known and left to whom they belong (each is reported, and the test fails
 * when one no longer happens, so that the list only shrinks): the statement's path and the table.
 */
const KNOWN_UNBOUNDED = new Map([
  [
    'intake: retention (erasure of what is due, drafts) outbox_message',
    "an erasure strips the notes from its request's answers still in the outbox, found by the envelope's request identifier, " +
      "which no index holds: the outbox is near empty while the relay keeps up, and its dead rows are the outbox remedies' (vacuum, keyset reads)",
  ],
]);

/** A year at this scale seeds in seconds, with every growing table large enough for the planner to choose as it does at scale 1 (its selectivity is the year's: year-profile.ts). */
const SCALE = 0.01;

/** Every hot statement of the services, run by their own code on a seeded year, planned by PostgreSQL: none may read a growing table whole. */
describe('the hot statements on a year of data', () => {
  const schemas: YearSchemas = {
    auth: uniqueName('y_auth'),
    intake: uniqueName('y_intake'),
    routing: uniqueName('y_routing'),
    notifier: uniqueName('y_notifier'),
  };
  const namespace = uniqueName('y_plans');
  const topology = declareTopology(namespace);
  const captured: CapturedStatement[] = [];
  const adapter = (schema: string) => createPrismaAdapter({ databaseUrl, schema, poolSize: 2 });
  const intake = new IntakePrisma({ adapter: adapter(schemas.intake) });
  const routing = new RoutingPrisma({ adapter: adapter(schemas.routing) });
  const notifier = new NotifierPrisma({ adapter: adapter(schemas.notifier) });
  const auth = new AuthPrisma({ adapter: adapter(schemas.auth) });
  const admin = new Client({ connectionString: databaseUrl });
  let broker: Broker;
  let seededAt: Date;
  let seededTables: string[];

  /**
   * Runs a hot path, capturing what it sends. A path that opens a value the seed wrote as bytes that
   * do not open (year-sealing.ts: case numbers, drafts, internal notes, bundles) has sent its
   * statement by then: it ends there.
   */
  const path = <T>(name: string, work: () => Promise<T>) =>
    capturePgQueries(name, captured, work).catch((error: unknown) => {
      if ((error as Error).name !== 'SealedValueRejectedError') throw error;
    });
  const one = async <T>(sql: string, values: unknown[] = []) => (await admin.query(sql, values)).rows[0] as T;

  beforeAll(async () => {
    await admin.connect();
    seededAt = new Date();
    const seed = await seedYear({
      databaseUrl,
      schemas,
      scale: SCALE,
      bench: BENCH_PARTY,
      nodeEnv: 'test',
      bundle: benchBundle(),
      now: seededAt,
      chunkDays: 92,
      ...(process.env.YEAR_PLANS_REPORT ? { log: (line: string) => console.log(line) } : {}),
    });
    seededTables = seed.tables.map((table) => table.table);
    await declareBrokerTopology(env.amqpUrl, topology, 5);
    broker = new Broker({ url: env.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 8, deliveryLimit: 5 });
    await broker.start();

    const logger = silentLogger();
    const systems = fhirSystems();
    const { fields } = await openSealedFields({ NODE_ENV: 'test', INTAKE_DB_SCHEMA: schemas.intake }, intake);
    // The registry as intake reads it from routing (its clinic directory), here from the seeded rows.
    const registry = new ClinicRepository(routing);
    const records = async (): Promise<ClinicRecord[]> =>
      (await registry.list()).map((clinic) => ({
        ik: clinic.ik,
        name: clinic.name,
        departments: clinic.departments.map((code) => ({ code, specialty: code, display: code })),
      }));
    const clinics = {
      lookup: async (iks: readonly string[]) => new Map((await records()).filter((c) => iks.includes(c.ik)).map((c) => [c.ik, c])),
      list: records,
    };
    const settings = new ReferrerSettingsRepository(intake, schemas.intake, { workingDays: 3, holidays: 'DE' });
    const service = new IntakeService(new AdmissionRequestRepository(prismaRunner(intake), schemas.intake, fields), clinics, systems, {
      answerDeadlineRules: (partyIds) => settings.rulesOf(partyIds),
    });
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(intake), schemas.intake));
    const referrer = { viewer: { role: 'referrer' as const, partyId: BENCH_PARTY.partyId }, user: BENCH_PARTY.userId };
    const benchRequest = await one<{ identifier: string; clinic_ik: string; task_id: string }>(
      `SELECT r.identifier, t.clinic_ik, t.id AS task_id FROM "${schemas.intake}".admission_request r JOIN "${schemas.intake}".clinic_task t ON t.request_id = r.id
        WHERE r.referrer_party_id = $1 AND r.status = 'active' AND r.intent = 'proposal' AND t.status = 'requested' ORDER BY r.created_at DESC LIMIT 1`,
      [BENCH_PARTY.partyId],
    );
    const clinic = { viewer: { role: 'clinic' as const, ikNumbers: [benchRequest.clinic_ik] }, user: 'clinic-user' };
    const submitter = { partyId: BENCH_PARTY.partyId, ikNumbers: [BENCH_PARTY.ik], fhirBase: BENCH_PARTY.fhirBase, user: BENCH_PARTY.userId };

    // intake: the state machine's batches (load and write), as the three kinds of message bring them.
    await path('intake: a new request', () =>
      service.handle([
        admissionCommand(
          {
            fhirBase: BENCH_PARTY.fhirBase,
            requestIdentifier: `${BENCH_PARTY.fhirBase}/ServiceRequest/${randomUUID()}`,
            requesterIk: BENCH_PARTY.ik,
            performerIks: [benchRequest.clinic_ik],
          },
          submitter,
        ),
      ]),
    );
    await path('intake: a clinic answers', () =>
      service.handle([clinicAnswerCommand({ taskId: benchRequest.task_id, clinicIk: benchRequest.clinic_ik, businessStatus: 'query', note: 'Rückfrage' })]),
    );
    await path('intake: a supplement', () =>
      service.handle([
        admissionCommand(
          {
            fhirBase: BENCH_PARTY.fhirBase,
            requestIdentifier: benchRequest.identifier,
            requesterIk: BENCH_PARTY.ik,
            performerIks: [benchRequest.clinic_ik],
            notes: ['Nachtrag'],
          },
          submitter,
        ),
      ]),
    );
    // intake: the reads (each search also appends its audit entry).
    const tasks = new TaskReadService(new TaskReadRepository(intake, schemas.intake, fields), systems, audit);
    await path('intake: Task polling by based-on', () =>
      tasks.search({ 'based-on': `${BENCH_PARTY.fhirBase}/ServiceRequest/seed-42` }, referrer, { base: '', path: '/api/v2/fhir/Task' }),
    );
    await path("intake: the referrer's Task list", () => tasks.search({ _count: '50' }, referrer, { base: '', path: '/api/v2/fhir/Task' }));
    await path("intake: a clinic's Task search", () => tasks.search({ _count: '50', status: 'requested' }, clinic, { base: '', path: '/api/v2/fhir/Task' }));
    const inbox = new ClinicTaskReadsService(new ClinicTaskReadsRepository(intake, schemas.intake, fields), systems, audit);
    await path('intake: the clinic inbox', () => inbox.list(clinic, ClinicTaskListQuery.parse({})));
    await path('intake: the clinic inbox, new ones', () => inbox.list(clinic, ClinicTaskListQuery.parse({ state: 'new' })));
    const workspace = new ClinicWorkspaceRepository(intake, schemas.intake, fields);
    await path("intake: the clinic's unseen Tasks", () => workspace.unseen(clinic.viewer));
    await path('intake: answer statistics of the payer record', () =>
      new AnswerStatisticsRepository(intake, schemas.intake).figures(new Date(seededAt.getTime() - 90 * 86_400_000), '2300'),
    );
    const referrerWorkspace = new ReferrerWorkspaceRepository(intake, schemas.intake, fields);
    await path("intake: the referrer's case numbers", () => referrerWorkspace.findByIdentifiers(BENCH_PARTY.partyId, [benchRequest.identifier]));
    await path("intake: the referrer's drafts", () => referrerWorkspace.listDrafts(BENCH_PARTY.partyId));
    await path('intake: AuditEvent search of a request', () =>
      new AuditTrailRepository(prismaRunner(intake), schemas.intake).search({
        viewer: referrer.viewer,
        requestIdentifiers: [benchRequest.identifier],
        agents: [],
        recorded: [],
        count: 50,
        offset: 0,
        total: false,
      }),
    );
    await path('intake: audit anchors', async () => {
      const keyring = (await openSealedFields({ NODE_ENV: 'test', INTAKE_DB_SCHEMA: schemas.intake }, intake)).fields.keyring;
      return new AuditAnchors(
        new AuditTrailRepository(prismaRunner(intake), schemas.intake),
        keyring.keks,
        () => new Date(seededAt.getTime() + 86_400_000),
      ).anchorEndedDays();
    });
    // intake: the jobs, each run once as every replica runs them.
    const erasures = new RequestErasureRepository(intake, schemas.intake);
    await path('intake: retention (erasure of what is due, drafts)', () =>
      new RetentionJob(erasures, { selectedDays: 90, erasureDelayDays: 30 }, logger, {
        now: () => new Date(seededAt.getTime() + 2 * 86_400_000),
        drafts: { days: 30, deleteSavedBefore: (before) => referrerWorkspace.deleteDraftsSavedBefore(before) },
      }).run(),
    );
    await path('intake: overdue sweep', () => new OverdueSweep(intake, schemas.intake, fields, systems, { logger, intervalMs: 60_000 }).run());
    await path('intake: escalation sweep', () =>
      new EscalationSweep(
        intake,
        schemas.intake,
        fields,
        systems,
        { clinics, deadlineRule: (partyId) => settings.ruleOf(partyId) },
        { logger, intervalMs: 60_000 },
      ).run(),
    );
    const mail = new MailOutboxRepository(intake, schemas.intake);
    await path('intake: mail reminders and the next due mail', async () => {
      await mail.addReminders(seededAt, 2 * 3_600_000);
      await mail.withNextDue(seededAt, async () => ({ outcome: 'no-recipients' }), { timeoutMs: 5_000 });
      await mail.prune(seededAt);
    });
    await path('intake: the outbox relay', async () => {
      const relay = new OutboxRelay({ databaseUrl, schema: schemas.intake, broker, logger, pollIntervalMs: 60_000 });
      relay.start();
      relay.nudge();
      await new Promise((resolve) => setTimeout(resolve, 500));
      await relay.stop();
    });

    // routing: a dispatch batch's state and the registry's reads.
    const dispatches = new DispatchRepository(routing, schemas.routing);
    await path('routing: a dispatch batch loads its state', () =>
      dispatches.load({
        messages: [{ messageId: randomUUID(), messageType: 'request.dispatched.v1', correlationId: 'plans' }],
        taskIds: [benchRequest.task_id],
        holdTaskIds: [benchRequest.task_id],
        wantedBeds: [],
        clinicIks: [benchRequest.clinic_ik],
        requestIdentifiers: [benchRequest.identifier],
        erasedRequests: [],
      }),
    );
    await path("routing: a clinic's notification log", () => dispatches.notificationsOf(benchRequest.clinic_ik, 100));
    const beds = new BedCapacityRepository(routing, schemas.routing);
    await path('routing: free beds shown to referrers', () => beds.shownToReferrers(seededAt.toISOString().slice(0, 10), '2300'));
    await path("routing: a clinic's bed counts", () => beds.list(benchRequest.clinic_ik, { from: seededAt.toISOString().slice(0, 10) }));
    await path('routing: the outbox relay', async () => {
      const relay = new OutboxRelay({ databaseUrl, schema: schemas.routing, broker, logger, pollIntervalMs: 60_000 });
      relay.start();
      relay.nudge();
      await new Promise((resolve) => setTimeout(resolve, 300));
      await relay.stop();
    });

    // notifier: an event stored, claimed and its attempt recorded; the backlog, the purge.
    const tables = notifierTables(schemas.notifier);
    const { fields: notifierFields } = await openNotifierFields({ NODE_ENV: 'test', NOTIFIER_DB_SCHEMA: schemas.notifier }, notifier);
    const deliveries = new DeliveryRepository(notifier, tables, notifierFields);
    await path('notifier: an event stored', () =>
      new EventRepository(notifier, tables, notifierFields).recordAll([
        {
          messageId: randomUUID(),
          messageType: 'admission.response.v1',
          eventId: randomUUID(),
          eventType: ADMISSION_RESPONSE_EVENT,
          partyId: BENCH_PARTY.partyId,
          requestIdentifier: benchRequest.identifier,
          occurredAt: new Date(),
          data: { resourceType: 'Task' },
        },
      ]),
    );
    await path('notifier: the delivery claim and its attempt', async () => {
      const { claimed } = await deliveries.claimDue(20, 30_000);
      await deliveries.recordAttempts(
        claimed.map((claim) => ({
          claim,
          attempt: { attemptedAt: new Date(), statusCode: 200, error: null, durationMs: 5 },
          step: { kind: 'delivered' as const },
        })),
        86_400_000,
      );
    });
    await path('notifier: the backlog', () => deliveries.countDue());
    await path('notifier: retention', () => deliveries.purgeOlderThan(7 * 86_400_000));
    const subscriptions = new SubscriptionRepository(notifier, tables, notifierFields);
    await path("notifier: a party's subscriptions and delivery log", async () => {
      const [subscription] = await subscriptions.list(BENCH_PARTY.partyId);
      if (subscription) await subscriptions.deliveries(subscription.id, { limit: 50 });
    });

    // auth: the lookups of a login, a token and the gateway's revocation list.
    await path('auth: a login', () => new UserRepository(auth).findByUsername(BENCH_PARTY.username));
    await path('auth: a party', () => new PartyRepository(auth).findById(BENCH_PARTY.partyId));
    await path('auth: revocations', () => new RevocationRepository(auth).recent());
    await path("auth: a party's mail recipients", () => new PartyMemberRepository(auth).mailRecipients({ id: BENCH_PARTY.partyId }));
  }, 120_000);

  afterAll(async () => {
    await broker?.stop(2_000);
    await deleteBrokerTopology(env.amqpUrl, topology).catch(() => undefined);
    await Promise.all([intake, routing, notifier, auth].map((client) => client.$disconnect()));
    for (const schema of Object.values(schemas)) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
    await admin.end();
  });

  it('every table of the services is either growing or fixed', () => {
    const unknown = [...new Set(seededTables)].filter((table) => !GROWING.has(table) && !FIXED.has(table));
    expect(unknown).toEqual([]);
  });

  it('every hot path was captured', () => {
    const paths = new Set(captured.map((statement) => statement.path));
    expect([...paths].length).toBeGreaterThanOrEqual(30);
    expect(captured.filter((statement) => statement.path.startsWith('intake: Task polling')).map((statement) => statement.query)).toContainEqual(
      expect.stringMatching(/r\.identifier = \$/),
    );
  });

  it('a statement no index serves fails the judgement', async () => {
    const statement = { query: `DELETE FROM "${schemas.intake}".mail_outbox WHERE outcome = $1`, params: ['given-up'] };
    const whole = sequentialScans(planScans(await planOf(admin, statement)), GROWING, new Set(Object.values(schemas)));
    expect(unboundedReads(whole, planScans(await planOf(admin, statement, { forced: true })))).toEqual(['mail_outbox']);
  });

  /** The statements inside the SQL functions the hot paths call (EXPLAIN of the call shows none of them), each checked to be in the function as migrated. */
  it('nor does a statement inside the functions they call', async () => {
    const inside = [
      {
        schema: schemas.intake,
        fn: 'append_audit_events',
        source: 'SELECT a.seq, a.hash INTO head_seq, head_hash FROM audit_events a WHERE a.day = entry.day ORDER BY a.seq DESC LIMIT 1',
        query: `SELECT a.seq, a.hash FROM "${schemas.intake}".audit_events a WHERE a.day = $1::date ORDER BY a.seq DESC LIMIT 1`,
        params: [seededAt.toISOString().slice(0, 10)],
      },
      {
        schema: schemas.notifier,
        fn: 'request_erased',
        source: 'SELECT 1 FROM request_erasure WHERE request_identifier = request AND party_id = referrer',
        query: `SELECT 1 FROM "${schemas.notifier}".request_erasure WHERE request_identifier = $1 AND party_id = $2`,
        params: [`${BENCH_PARTY.fhirBase}/ServiceRequest/seed-42`, BENCH_PARTY.partyId],
      },
    ];
    for (const statement of inside) {
      const { prosrc } = await one<{ prosrc: string }>(
        'SELECT p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = $1 AND p.proname = $2',
        [statement.schema, statement.fn],
      );
      expect(prosrc.replace(/\s+/g, ' ')).toContain(statement.source);
      const scans = planScans(await planOf(admin, { query: statement.query, params: statement.params }));
      expect(sequentialScans(scans, GROWING, new Set(Object.values(schemas)))).toEqual([]);
    }
  });

  /**
   * The verdict is the plan PostgreSQL chooses. On the seed's hundredth of a year a table of a few
   * thousand rows is cheaper read whole than through its index, which no year leaves it: such a
   * sequential scan passes when PostgreSQL, asked for that statement alone with sequential scans
   * discouraged, reads the table through an index condition (statement-capture.ts, unboundedReads).
   * A read no index bounds fails either way. On a whole year (YEAR_PLANS_DATABASE_URL) the plan as
   * chosen is the verdict alone.
   */
  it('no hot statement reads a growing table whole', async () => {
    const seen = new Set<string>();
    const report: string[] = [];
    const violations: string[] = [];
    const known = new Set<string>();
    const year = wholeYear ? new Client({ connectionString: wholeYear }) : undefined;
    await year?.connect();
    // The statements as they read on the year's template: its schemas have the services' default names.
    const onYear = (query: string) =>
      (Object.keys(schemas) as (keyof YearSchemas)[]).reduce(
        (text, service) => text.replaceAll(`"${schemas[service]}"`, `"${DEFAULT_SCHEMAS[service]}"`),
        query,
      );
    const judged = new Set(Object.values(wholeYear ? DEFAULT_SCHEMAS : schemas));
    try {
      for (const statement of captured) {
        if (!explainable(statement.query) || seen.has(statement.query)) {
          continue;
        }
        seen.add(statement.query);
        const scans: Scan[] = year
          ? planScans(await planOf(year, { ...statement, query: onYear(statement.query) }))
          : planScans(await planOf(admin, statement));
        const whole = sequentialScans(scans, GROWING, judged);
        const forced = whole.length === 0 || year ? [] : planScans(await planOf(admin, statement, { forced: true }));
        const unbounded = whole.length === 0 ? [] : year ? whole.map((scan) => scan.relation!) : unboundedReads(whole, forced);
        report.push(
          `${statement.path}: ${scans.map((scan) => `${scan.node} ${scan.relation ?? ''}${scan.index ? ` (${scan.index})` : ''}`.trim()).join(', ')}`,
        );
        for (const relation of unbounded.filter((relation) => KNOWN_UNBOUNDED.has(`${statement.path} ${relation}`))) {
          known.add(`${statement.path} ${relation}`);
        }
        const unknown = unbounded.filter((relation) => !KNOWN_UNBOUNDED.has(`${statement.path} ${relation}`));
        if (unknown.length > 0) {
          const readsOf = forced.filter((scan) => unknown.includes(scan.relation ?? '')).map((scan) => `${scan.node}${scan.index ? ` (${scan.index})` : ''}`);
          violations.push(
            `${statement.path}: no index bounds the read of ${unknown.join(', ')} (${readsOf.join(', ') || 'as chosen'})\n  ${statement.query.replace(/\s+/g, ' ').slice(0, 300)}`,
          );
        }
      }
    } finally {
      await year?.end();
    }
    if (process.env.YEAR_PLANS_REPORT) console.log(report.join('\n'));
    expect(violations).toEqual([]);
    expect([...KNOWN_UNBOUNDED.keys()].filter((key) => !known.has(key))).toEqual([]);
  });
});
