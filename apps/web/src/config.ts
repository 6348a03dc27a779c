import { z } from 'zod';
import { configSchema, env, processEnv, redisEnv, requiredInProduction } from '@bedrequest/config';
import { DEFAULT_SESSION_LIMITS } from './session/session-store';

const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined))
  .refine((value) => value === undefined || value.length >= 32, 'must be at least 32 characters (e.g. `openssl rand -hex 32`)');

/**
 * The web app: the people's pages (the clinic inbox under /inbox/), a client of the gateway's public
 * API like any other. It keeps its sessions in Redis, so that any number of processes serve them.
 */
export const WebConfig = configSchema({
  ...processEnv,
  HOST: z.string().default('127.0.0.1'),
  /** The pages' port (docs/inbox.md). */
  WEB_PORT: env.port(8085),
  /** Health probes and metrics, never the pages (and the pages' port has neither). */
  WEB_INTERNAL_PORT: env.port(9085),
  /** The gateway's public API, which the pages read and write through with the person's token. */
  GATEWAY_URL: env.url('http://127.0.0.1:8080', ['http:', 'https:']),
  /** Sessions and what the processes share (session.ts). */
  ...redisEnv,
  /**
   * The key of the pages' CSRF tokens, the same in every process. Required in production; unset
   * elsewhere, the first process makes a random one and keeps it in Redis for the others.
   */
  WEB_CSRF_SECRET: requiredInProduction(optionalSecret, 'at least 32 characters (e.g. `openssl rand -hex 32`), the same in every web process'),
  /**
   * A session the person has not used for this long ends (the live list's polling is no use): 12
   * hours by default, a working day and its evening (docs/inbox.md).
   */
  WEB_SESSION_IDLE_SECONDS: env.positiveInt(DEFAULT_SESSION_LIMITS.idleSeconds),
  /**
   * Every session ends this long after its login, however it was used: 7 days by default. At most
   * the refresh token's lifetime (30 days) makes sense: a session cannot outlive the token it renews with.
   */
  WEB_SESSION_LIFETIME_SECONDS: env.positiveInt(DEFAULT_SESSION_LIMITS.lifetimeSeconds),
  /**
   * A session's access token (3600 s) is renewed when less than this is left of it, before the
   * request that finds it so; 300 s leave room for a slow page. Tests set it above 3600 to renew on
   * every request.
   */
  WEB_SESSION_REFRESH_MARGIN_SECONDS: env.positiveInt(300),
  /** `{profile_base}` of the code systems the bundles are read with (docs/decisions.md). */
  PROFILE_BASE: env.url('https://bedrequest.example.org', ['http:', 'https:']),
  /**
   * A test environment without real patient data (`npm run sandbox`): every page says so, every
   * answer carries `Bedrequest-Environment: sandbox`, and the workspace offers the webhook
   * inspector (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)"). Off, none of it exists.
   */
  SANDBOX: env.bool(false),
  /**
   * Where the notifier reaches this web app: the inspector's receiver addresses begin with it. Unset,
   * they begin with the origin the browser used for the page.
   */
  WEB_PUBLIC_URL: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim().replace(/\/+$/, '') : undefined))
    .refine((value) => value === undefined || isHttpUrl(value), 'must be an absolute http or https URL'),
});
export type WebConfig = z.infer<typeof WebConfig>;

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
