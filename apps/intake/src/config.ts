import { z } from 'zod';
import { amqpEnv, baseServiceEnv, configSchema, dataKeyEnv, databaseEnv, env, serviceClientEnv, tokenEnv } from '@bedrequest/config';
import { HolidayRegion } from '@bedrequest/contracts';
import { DEFAULT_REQUEST_LIMITS } from './requests/request-limits';

export const IntakeConfig = configSchema({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  INTAKE_PORT: env.port(8082),
  /**
   * Health probes and metrics, never the API the other services call (and that port has neither):
   * the one port monitoring reaches (docs/operations.md, "Metrics and probes").
   */
  INTAKE_INTERNAL_PORT: env.port(9082),
  ...databaseEnv('INTAKE_DB_SCHEMA', 'intake'),
  /** The key-encryption keys of the bundles, documents, notes and verdicts sealed at rest (docs/data-protection.md). */
  ...dataKeyEnv,
  /** Task reads are for the parties whose access tokens the gateway forwards; the keys come from auth. */
  ...tokenEnv,
  /** For the service token intake reads routing's clinic registry with. */
  ...serviceClientEnv,
  /** `{profile_base}` of the service's code systems and profiles (docs/decisions.md). */
  PROFILE_BASE: env.url('https://bedrequest.example.org', ['http:', 'https:']),
  /** Routing's internal API: the clinic registry, kept in memory (declines for clinics without the department). */
  ROUTING_URL: env.url('http://127.0.0.1:8083', ['http:', 'https:']),
  /** How often the outbox relay looks for messages whose immediate publish failed. */
  OUTBOX_POLL_INTERVAL_MS: env.positiveInt(1_000),
  /**
   * Retention (docs/data-protection.md): a request whose selection is older than
   * RETENTION_SELECTED_DAYS, or that was revoked, has its patient data erased RETENTION_ERASURE_DELAY_DAYS later.
   */
  RETENTION_SELECTED_DAYS: env.positiveInt(90),
  RETENTION_ERASURE_DELAY_DAYS: env.positiveInt(30),
  /** A referrer's draft of a new request is deleted this long after it was last saved (docs/data-protection.md). */
  REFERRER_DRAFT_RETENTION_DAYS: env.positiveInt(30),
  /** The payer's records are signed with a key of the service's, replaced once it is this old (docs/operations.md, "Record signing keys"). */
  RECORD_SIGNING_KEY_MAX_AGE_DAYS: env.positiveInt(90),
  /**
   * What one request may hold (src/requests/request-limits.ts, docs/api.md "Limits per request"): a
   * supplement or a document over a limit is refused with 409 `too-long`; a selection, its withdrawal
   * and a revocation never are.
   */
  REQUEST_MAX_VERSIONS: env.positiveInt(DEFAULT_REQUEST_LIMITS.versions),
  REQUEST_MAX_DOCUMENTS: env.positiveInt(DEFAULT_REQUEST_LIMITS.documents),
  REQUEST_MAX_BYTES: env.positiveInt(DEFAULT_REQUEST_LIMITS.bytes),
  /** The clinic's notes one Task keeps: an answer with a note over it is refused (409 `too-long`), one without a note is not. */
  TASK_MAX_NOTES: env.positiveInt(DEFAULT_REQUEST_LIMITS.notes),
  /**
   * The service's default answer deadline for a party that set none (docs/api.md, "Answer deadlines"):
   * this many working days (1 to 10) after receipt in Europe/Berlin, the public holidays of
   * ANSWER_DEADLINE_HOLIDAYS (`DE`: the nationwide ones; `DE-BW` …: a state's) no working days.
   */
  ANSWER_DEADLINE_WORKING_DAYS: z.coerce.number().int().min(1).max(10).default(2),
  ANSWER_DEADLINE_HOLIDAYS: HolidayRegion.default('DE'),
  /** How often each intake looks for Tasks past their deadline to mark overdue. */
  OVERDUE_SWEEP_SECONDS: env.positiveInt(30),
  /**
   * E-mail to the people who asked for it (docs/operations.md, "E-mail"): through the relay at
   * SMTP_URL (`smtp://user:password@relay:587`, `smtps://…`; a secret), from MAIL_FROM. Unset: no
   * mail is sent (and none older than MAIL_GIVE_UP_HOURS once it is set).
   */
  SMTP_URL: z
    .string()
    .optional()
    .transform((value) => value?.trim() || undefined)
    .refine((value) => value === undefined || /^smtps?:\/\/[^/]/.test(value), 'must be an smtp:// or smtps:// URL'),
  MAIL_FROM: z.string().trim().min(3).default('Bettenanfrage <noreply@bedrequest.example.org>'),
  /** The web app's public address (apps/web): a mail's only content is a link to its page there. */
  WEB_PUBLIC_URL: env.url('http://127.0.0.1:8085', ['http:', 'https:']),
  /** A clinic still to answer is reminded this long before its deadline (fractions allowed: 0.1 is 6 s). */
  MAIL_REMINDER_BEFORE_MINUTES: z.coerce.number().positive().default(240),
  /** How often each intake looks for mail to send and clinics to remind. */
  MAIL_POLL_SECONDS: env.positiveInt(10),
  /** The first retry after the relay failed; each further one waits twice as long, up to an hour. */
  MAIL_RETRY_BASE_SECONDS: env.positiveInt(30),
  /** A mail not sent within this long is given up (logged): news that late is no news. */
  MAIL_GIVE_UP_HOURS: env.positiveInt(72),
});
export type IntakeConfig = z.infer<typeof IntakeConfig>;

/** What `npm run admin -- audit ...`, `request ...` and `intake ...` need: the running stack's database and keys. */
export const IntakeCliConfig = configSchema({
  NODE_ENV: baseServiceEnv.NODE_ENV,
  ...databaseEnv('INTAKE_DB_SCHEMA', 'intake'),
  ...dataKeyEnv,
  /**
   * Who runs an audited command (`request export`, `request erase`), as the audit trail records it:
   * needed where every operator runs as the same system user, as with `kubectl exec` in a pod.
   * Unset, the login of the process (os.userInfo).
   */
  ADMIN_OPERATOR: z
    .string()
    .optional()
    .transform((value) => value?.trim() || undefined),
});
export type IntakeCliConfig = z.infer<typeof IntakeCliConfig>;

/**
 * What `npm run admin -- dead-letters ...` and `request erase` need besides: the broker, with
 * intake's own user (it reads every dead-letter queue: docs/operations.md, "Dead-lettered
 * messages"). Apart from IntakeCliConfig so that `audit` and `intake` commands work without one.
 */
export const IntakeCliBrokerConfig = configSchema({
  NODE_ENV: baseServiceEnv.NODE_ENV,
  AMQP_URL: amqpEnv.AMQP_URL,
  AMQP_NAMESPACE: amqpEnv.AMQP_NAMESPACE,
});
export type IntakeCliBrokerConfig = z.infer<typeof IntakeCliBrokerConfig>;
