import type { Server } from 'node:http';
import { ClinicDirectory, loadClinicsFrom } from '@bedrequest/clinic-directory';
import { declareTopology } from '@bedrequest/contracts';
import { startDataKeyring } from '@bedrequest/crypto';
import { fhirSystems } from '@bedrequest/fhir-model';
import { jsonErrorHandler } from '@bedrequest/http';
import { connectServiceBroker, startOutboxRelay } from '@bedrequest/messaging';
import { createServiceHttpApp, serveHttp, serveProbes, startService, type Started } from '@bedrequest/observability';
import { databaseIsReachable } from '@bedrequest/persistence';
import { serviceTokensFor, tokenVerifierFor } from '@bedrequest/tokens';
import { AuditAnchorJob, AuditAnchors, AuditTrail, AuditTrailRepository } from './audit';
import {
  ClinicTaskHistoryReads,
  clinicTaskHistoryRouter,
  ClinicTaskReadsRepository,
  ClinicTaskReadsService,
  ClinicTaskReferrers,
  clinicTaskReferrerRouter,
  clinicTasksRouter,
} from './clinic-tasks';
import { ClinicWorkspaceRepository, ClinicWorkspaceService, clinicWorkspaceRouter } from './clinic-workspace';
import { AnswerStatisticsRepository, AnswerStatisticsService, answerStatisticsRouter } from './answer-statistics';
import type { IntakeConfig } from './config';
import { intakeDeadLetters } from './dead-letters';
import { RequestErasureRepository, RetentionJob, startDeadLetterSweep } from './erasure';
import { internalRouter } from './http';
import { AuthRecipientDirectory, MailOutboxRepository, MailSender, smtpTransport } from './mail';
import { intakeHandler } from './messages';
import { openIntakeDatabase, openSealedFields, prismaRunner, type SealedFields } from './persistence';
import { PayerRecordRepository, PayerRecordService, payerRecordRouter, RecordSigningKeys } from './payer-record';
import { ReferrerWorkspaceRepository, ReferrerWorkspaceService, referrerWorkspaceRouter } from './referrer-workspace';
import { EscalationSweep, OverdueSweep, ReferrerSettingsRepository, referrerSettingsRouter } from './deadlines';
import { requestReadRouter, RequestReadService } from './request-reads';
import { AdmissionRequestRepository, IntakeService } from './requests';
import { TaskReadRepository, TaskReadService } from './tasks';

export type RunningIntake = Started<{
  readonly server: Server;
  /** The bound address (INTAKE_PORT=0 picks a free port): the internal read API. */
  readonly url: string;
  /** The internal address (INTAKE_INTERNAL_PORT): health probes and metrics. */
  readonly internalUrl: string;
}>;

/** What a test process may put in place of the service's own parts. */
export interface IntakeOverrides {
  /** The fields intake stores, given its keyring: the bench's unsealed yardstick (testing/clear-fields.ts). */
  fields?: (keyring: SealedFields['keyring']) => SealedFields;
}

export function startIntake(config: IntakeConfig, overrides: IntakeOverrides = {}): Promise<RunningIntake> {
  return startService('intake', { logLevel: config.LOG_LEVEL, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async (context) => {
    const { logger, registry, lifecycle } = context;
    const systems = fhirSystems(config.PROFILE_BASE);

    const prisma = await openIntakeDatabase({ databaseUrl: config.DATABASE_URL, schema: config.INTAKE_DB_SCHEMA, poolSize: config.DATABASE_POOL_SIZE });
    lifecycle.onStop('database', () => prisma.$disconnect());
    // Bundles, documents, notes and verdicts are sealed at rest (docs/data-protection.md).
    const sealed = await openSealedFields(config, prisma, (error) =>
      logger.warn({ err: String(error) }, 'looking for a new data key failed; sealing with the current one'),
    );
    const { development, unavailable } = sealed;
    const fields = overrides.fields ? overrides.fields(sealed.fields.keyring) : sealed.fields;
    lifecycle.onStop('data keys', startDataKeyring({ keyring: fields.keyring, development, unavailable }, logger));

    const topology = declareTopology(config.AMQP_NAMESPACE);
    const broker = await connectServiceBroker(config, { logger, metrics: registry });
    lifecycle.onStop('broker', (remainingMs) => broker.stop(remainingMs));

    const { relay, stop: stopRelay } = startOutboxRelay({
      databaseUrl: config.DATABASE_URL,
      schema: config.INTAKE_DB_SCHEMA,
      broker,
      logger,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      metrics: registry,
    });
    lifecycle.onStop('outbox relay', stopRelay);

    // The registry in memory (routing owns it): declining for clinics without the requested
    // department needs it for every request. Read with intake's service token.
    const serviceTokens = serviceTokensFor(config, 'intake');
    lifecycle.onStop('service tokens', () => serviceTokens.close());
    const clinics = new ClinicDirectory({ load: loadClinicsFrom(config.ROUTING_URL, serviceTokens), logger, startTimeoutMs: config.STARTUP_TIMEOUT_MS });
    await clinics.start(broker);
    lifecycle.onStop('clinic directory', async () => clinics.stop());

    // The parties' default answer deadlines, the service's from the environment (docs/api.md, "Answer deadlines").
    const referrerSettings = new ReferrerSettingsRepository(prisma, config.INTAKE_DB_SCHEMA, {
      workingDays: config.ANSWER_DEADLINE_WORKING_DAYS,
      holidays: config.ANSWER_DEADLINE_HOLIDAYS,
    });
    const service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), config.INTAKE_DB_SCHEMA, fields), clinics, systems, {
      limits: { versions: config.REQUEST_MAX_VERSIONS, documents: config.REQUEST_MAX_DOCUMENTS, bytes: config.REQUEST_MAX_BYTES, notes: config.TASK_MAX_NOTES },
      answerDeadlineRules: (partyIds) => referrerSettings.rulesOf(partyIds),
    });
    await broker.consume(topology.queues.intake.name, intakeHandler(service, relay, logger));

    const app = createServiceHttpApp({ logger, registry, trustedProxies: config.TRUSTED_PROXIES });
    // Every read of patient data is recorded in the audit trail before it is answered.
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), config.INTAKE_DB_SCHEMA));
    // Each ended day's chain is anchored under a key derived from the KEK (audit/audit-anchors.ts).
    const anchoring = new AuditAnchorJob(
      new AuditAnchors(new AuditTrailRepository(prismaRunner(prisma), config.INTAKE_DB_SCHEMA), sealed.fields.keyring.keks),
      logger,
    );
    anchoring.start();
    lifecycle.onStop('audit anchors', () => anchoring.stop());
    const tasks = new TaskReadService(new TaskReadRepository(prisma, config.INTAKE_DB_SCHEMA, fields), systems, audit);
    const verifier = tokenVerifierFor(config, { services: false });
    // An erasure's messages in the dead-letter queues go too (erasure/dead-letter-sweep.ts).
    const deadLetterSweep = startDeadLetterSweep(
      intakeDeadLetters({ amqpUrl: config.AMQP_URL, namespace: config.AMQP_NAMESPACE }, prisma, config.INTAKE_DB_SCHEMA),
      logger,
    );
    lifecycle.onStop('dead-letter sweep', () => deadLetterSweep.stop());
    const erasures = new RequestErasureRepository(prisma, config.INTAKE_DB_SCHEMA, { onErased: () => deadLetterSweep.wake() });
    app.use(internalRouter(tasks, audit, erasures, verifier, logger));
    // A referrer reads back the latest version of a request it sent (docs/api.md, "Reading a request back").
    app.use(requestReadRouter(new RequestReadService(prisma, fields, audit), verifier, logger));
    // The hospital's own data beside its requests: case numbers and drafts, never sent to a clinic.
    app.use(referrerSettingsRouter(referrerSettings, verifier, logger));
    const referrerWorkspace = new ReferrerWorkspaceRepository(prisma, config.INTAKE_DB_SCHEMA, fields);
    app.use(referrerWorkspaceRouter(new ReferrerWorkspaceService(referrerWorkspace), verifier, logger));
    // The record for the payer, signed with the service's own key (docs/api.md, "The record for the payer").
    const recordKeys = new RecordSigningKeys(prisma, config.INTAKE_DB_SCHEMA, fields, { maxAgeDays: config.RECORD_SIGNING_KEY_MAX_AGE_DAYS });
    const payerRecords = new PayerRecordService(new PayerRecordRepository(prisma, config.INTAKE_DB_SCHEMA, fields), recordKeys, audit);
    app.use(payerRecordRouter(payerRecords, recordKeys, verifier, logger));
    // Requests past their retention are erased, and drafts past theirs deleted (docs/data-protection.md, "Retention and erasure").
    const retention = new RetentionJob(
      erasures,
      { selectedDays: config.RETENTION_SELECTED_DAYS, erasureDelayDays: config.RETENTION_ERASURE_DELAY_DAYS },
      logger,
      { drafts: { days: config.REFERRER_DRAFT_RETENTION_DAYS, deleteSavedBefore: (before) => referrerWorkspace.deleteDraftsSavedBefore(before) } },
    );
    retention.start();
    lifecycle.onStop('retention', () => retention.stop());
    // Tasks past their answer deadline are marked overdue, once across every replica (deadlines/overdue-sweep.ts).
    const overdue = new OverdueSweep(prisma, config.INTAKE_DB_SCHEMA, fields, systems, {
      logger,
      intervalMs: config.OVERDUE_SWEEP_SECONDS * 1000,
      onMarked: () => relay.nudge(),
    });
    overdue.start();
    lifecycle.onStop('overdue sweep', () => overdue.stop());
    // E-mail to the people who asked for it, once per event across every replica (mail/mail-sender.ts); none without SMTP_URL.
    const recipients = new AuthRecipientDirectory(config.AUTH_URL, serviceTokens);
    lifecycle.onStop('mail recipients', () => recipients.close());
    const mail = new MailSender(
      new MailOutboxRepository(prisma, config.INTAKE_DB_SCHEMA),
      recipients,
      config.SMTP_URL ? smtpTransport(config.SMTP_URL, config.MAIL_FROM, { requireTls: config.NODE_ENV === 'production' }) : undefined,
      {
        logger,
        registry,
        from: config.MAIL_FROM,
        webPublicUrl: config.WEB_PUBLIC_URL,
        intervalMs: config.MAIL_POLL_SECONDS * 1000,
        reminderBeforeMs: config.MAIL_REMINDER_BEFORE_MINUTES * 60_000,
        retryBaseMs: config.MAIL_RETRY_BASE_SECONDS * 1000,
        giveUpMs: config.MAIL_GIVE_UP_HOURS * 3600_000,
      },
    );
    mail.start();
    lifecycle.onStop('mail', () => mail.stop());
    // After the deadline the party's rule asks further clinics, each once across every replica (deadlines/escalation-sweep.ts).
    const escalation = new EscalationSweep(
      prisma,
      config.INTAKE_DB_SCHEMA,
      fields,
      systems,
      { clinics, deadlineRule: (partyId) => referrerSettings.ruleOf(partyId) },
      { logger, intervalMs: config.OVERDUE_SWEEP_SECONDS * 1000, onAsked: () => relay.nudge() },
    );
    escalation.start();
    lifecycle.onStop('escalation sweep', () => escalation.stop());
    // A Task's history for its clinic: its answers, documents and request changes.
    app.use(clinicTaskHistoryRouter(new ClinicTaskHistoryReads(prisma, fields, audit), verifier, logger));
    app.use(clinicTaskReferrerRouter(new ClinicTaskReferrers(prisma), verifier, logger));
    // The clinic's list rows and request versions (the clinic inbox and any clinic software).
    app.use(
      clinicTasksRouter(new ClinicTaskReadsService(new ClinicTaskReadsRepository(prisma, config.INTAKE_DB_SCHEMA, fields), systems, audit), verifier, logger),
    );
    // What the clinic's people share about its Tasks: who works on one, internal notes, what was seen.
    app.use(clinicWorkspaceRouter(new ClinicWorkspaceService(new ClinicWorkspaceRepository(prisma, config.INTAKE_DB_SCHEMA, fields), audit), verifier, logger));
    // Answer times and acceptances per clinic and department, from the rows the first answers wrote.
    app.use(answerStatisticsRouter(new AnswerStatisticsService(new AnswerStatisticsRepository(prisma, config.INTAKE_DB_SCHEMA)), verifier, logger));
    // Stopped first after the HTTP server: no new deliveries, the batches taken are written and
    // acked while the outbox relay (stopped after them) still publishes what they wrote.
    lifecycle.onStop('consumers', (remainingMs) => broker.stopConsuming(remainingMs));
    const internal = await serveProbes(context, {
      readiness: { broker: () => broker.isReady(), database: () => databaseIsReachable(() => prisma.$queryRaw`SELECT 1`) },
      host: config.HOST,
      port: config.INTAKE_INTERNAL_PORT,
      after: [jsonErrorHandler(logger)],
    });
    const { server, url } = await serveHttp(context, app, { host: config.HOST, port: config.INTAKE_PORT });
    return { server, url, internalUrl: internal.url };
  });
}
