import { z } from 'zod';
import { baseServiceEnv, configSchema, dataKeyEnv, databaseEnv, env, requiredInProduction, tokenEnv } from '@bedrequest/config';
import { parseDuration, parseDurationList } from './delivery/durations';

const duration = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, context) => {
      try {
        return parseDuration(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

const durationList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, context) => {
      try {
        return parseDurationList(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });

/** Unset: decided by NODE_ENV (see allowsPrivateCallbacks and requiresHttpsCallbacks). */
const optionalBool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .optional()
  .transform((value) => (value === undefined ? undefined : ['true', '1', 'yes'].includes(value)));

export const NotifierConfig = configSchema({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  NOTIFIER_PORT: env.port(8084),
  /**
   * Health probes and metrics, never the API the other services call (and that port has neither):
   * the one port monitoring reaches (docs/operations.md, "Metrics and probes").
   */
  NOTIFIER_INTERNAL_PORT: env.port(9084),
  ...databaseEnv('NOTIFIER_DB_SCHEMA', 'notifier'),
  /** The key-encryption keys of the webhook secrets and Tasks sealed at rest (docs/data-protection.md). */
  ...dataKeyEnv,
  /** Subscriptions are managed with the referrers' access tokens the gateway forwards. */
  ...tokenEnv,
  /**
   * Delays before the 2nd, 3rd, ... attempt (docs/decisions.md, "Subscriptions and webhooks"), each
   * with ±10 % jitter: 5 s + 30 s + 2 min + 10 min + 30 min + 1 h + 2 h + 4 h + 8 h + 8 h ≈ 24 h
   * over 11 attempts. Comma-separated durations (`ms`, `s`, `m`, `h`, `d`); empty: one attempt only.
   */
  WEBHOOK_RETRY_SCHEDULE: durationList('5s,30s,2m,10m,30m,1h,2h,4h,8h,8h'),
  /** An attempt without a complete answer head within this time failed (docs/decisions.md: 10 s). */
  WEBHOOK_TIMEOUT: duration('10s'),
  /**
   * Callback URLs on loopback, private, link-local or otherwise reserved addresses are refused
   * unless this is true. Default: true in development and test, false in production.
   */
  WEBHOOK_ALLOW_PRIVATE: optionalBool,
  /**
   * Callback URLs must be https (an `http://` one is refused when a subscription is made or its
   * address changed) unless this is false: webhook bodies carry patient data and the signature
   * proves only who sent them, not that nobody else read them. Default: true in production,
   * false in development and test, whose receivers are plain http on loopback.
   */
  WEBHOOK_REQUIRE_HTTPS: optionalBool,
  /** A subscription whose attempts have all failed for this long is disabled. */
  WEBHOOK_DISABLE_AFTER: duration('5d'),
  /** Delivered and failed events stay readable (`/events?since=`, delivery log) this long. */
  WEBHOOK_EVENT_RETENTION: duration('7d'),
  /**
   * Attempts one notifier process has in flight at once, from claim to recorded outcome; also the
   * most connections it keeps open to one callback origin (an attempt never waits for one). An
   * attempt holds its slot for its answer plus the batched recording and the next claim, about 10
   * to 20 ms under load, so 3,000 attempts/s need 3,000 × 0.02 ≈ 60 slots. Measured on 2 cores
   * (2,000 events over 200 requests to one local receiver): 16 slots ~1,900/s, 32 ~2,600/s, 64 and
   * 128 ~3,000/s (the machine's CPU is then the limit).
   */
  WEBHOOK_CONCURRENCY: env.positiveInt(64),
  /**
   * Attempts in flight at once for one subscription, and for one origin of callback URLs (scheme,
   * host and port: one receiver's server, perhaps of several subscriptions), over every notifier
   * process: one party's slow receiver cannot take every slot (claim-rule.ts). Defaults 8 and 16.
   */
  WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: env.positiveInt(8),
  WEBHOOK_MAX_IN_FLIGHT_PER_ORIGIN: env.positiveInt(16),
  /**
   * How often a worker looks for due deliveries on its own: retries (5 s and later, so at most a
   * second late) and events other processes left. New events that can go out at once are handed to
   * the worker when they are stored, so this does not delay first attempts (docs/decisions.md, "Timing").
   */
  WEBHOOK_POLL_INTERVAL_MS: env.positiveInt(1_000),
  /**
   * The shortest `heartbeatSeconds` a subscription may set (docs/webhooks.md, "Heartbeats"); the
   * longest is a day. Lower only for tests: a heartbeat a minute is plenty to notice a broken link.
   */
  WEBHOOK_HEARTBEAT_MIN: duration('60s'),
  /** How often each notifier looks for heartbeats due and expired previous secrets: a heartbeat goes out at most this late. */
  WEBHOOK_HEARTBEAT_CHECK_INTERVAL: duration('10s'),
  /** How long a rotated-out signing secret still signs beside the new one (docs/webhooks.md, "Rotating the secret"); 0: not at all. */
  WEBHOOK_SECRET_OVERLAP: duration('24h'),
  /**
   * The notifier's service tokens, with which it reads the disabled parties from auth and withholds
   * their webhooks (docs/webhooks.md, "Authorization at delivery time"). Required in production;
   * unset in development and test, webhooks go out unchecked (a warning at start says so).
   */
  SERVICE_CLIENT_SECRET: requiredInProduction(
    // Optional before the transform, as DATA_KEK's: a plain `.optional()` field lets production skip it.
    z
      .string()
      .optional()
      .transform((value) => (value?.trim() ? value.trim() : undefined))
      .refine((value) => value === undefined || value.length >= 32, 'must be at least 32 characters (e.g. `openssl rand -hex 32`)'),
    'the service client secret shared by the services and auth (at least 32 characters, e.g. `openssl rand -hex 32`)',
  ),
  /** How often the list of disabled parties is read from auth (100 to 60000): a disabled party's webhooks stop within about this long. */
  WEBHOOK_PARTY_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
});
export type NotifierConfig = z.infer<typeof NotifierConfig>;

/** What `npm run admin -- notifier ...` needs: the running stack's database and its key-encryption keys. */
export const NotifierCliConfig = configSchema({ NODE_ENV: baseServiceEnv.NODE_ENV, ...databaseEnv('NOTIFIER_DB_SCHEMA', 'notifier'), ...dataKeyEnv });
export type NotifierCliConfig = z.infer<typeof NotifierCliConfig>;

/** docs/decisions.md: private callback addresses only when WEBHOOK_ALLOW_PRIVATE=true, the default in development and tests. */
export function allowsPrivateCallbacks(config: Pick<NotifierConfig, 'NODE_ENV' | 'WEBHOOK_ALLOW_PRIVATE'>): boolean {
  return config.WEBHOOK_ALLOW_PRIVATE ?? config.NODE_ENV !== 'production';
}

/** docs/decisions.md: https callback URLs only when WEBHOOK_REQUIRE_HTTPS=true, the default in production. */
export function requiresHttpsCallbacks(config: Pick<NotifierConfig, 'NODE_ENV' | 'WEBHOOK_REQUIRE_HTTPS'>): boolean {
  return config.WEBHOOK_REQUIRE_HTTPS ?? config.NODE_ENV === 'production';
}
