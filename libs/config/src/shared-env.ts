import { z } from 'zod';
import * as env from './env-schemas';
import { requiredInProduction } from './production-rule';

/**
 * The database block of a service that owns a PostgreSQL schema: the server with the service's
 * credentials (outside production the local server as `postgres`), the schema's variable
 * (`INTAKE_DB_SCHEMA`, …; no other service reads that schema) and the pool size.
 */
export function databaseEnv<V extends string>(schemaVariable: V, schema: string) {
  return {
    DATABASE_URL: requiredInProduction(
      env
        .url('postgresql://postgres@127.0.0.1:5432/bedrequest', ['postgresql:', 'postgres:'])
        // node-postgres reads prefer, require and verify-ca as verify-full today and as libpq does
        // (without verifying the server) from its next major version: only the two meanings that stay.
        .refine(
          (value) => ['', 'disable', 'verify-full'].includes(URL.parse(value)?.searchParams.get('sslmode') ?? ''),
          'sslmode must be verify-full (TLS, the server verified; docs/operations.md, "Encryption in transit") or disable',
        ),
      "the PostgreSQL URL with the service's own user and password (postgresql://user:password@host:5432/bedrequest?sslmode=verify-full)",
    ),
    DATABASE_POOL_SIZE: env.positiveInt(10),
    ...({ [schemaVariable]: env.schemaName(schema) } as Record<V, ReturnType<typeof env.schemaName>>),
  };
}

/**
 * The Redis block of a service that keeps shared state there (auth's refresh tokens, the web app's
 * sessions): the server with the service's credentials (outside production the local server).
 */
export const redisEnv = {
  REDIS_URL: requiredInProduction(
    env.url('redis://127.0.0.1:6379', ['redis:', 'rediss:']),
    "the Redis URL with the service's own user and password (rediss://user:password@host:6379)",
  ),
  /** Prefix of every Redis key, so that test runs and stacks can share one Redis. */
  REDIS_KEY_PREFIX: z.string().default('bedrequest:'),
};

/**
 * Where tokens come from and what they must say: every service that verifies access tokens (the
 * gateway; intake, routing and the notifier for the tokens the gateway forwards) reads the auth
 * service's public keys from AUTH_URL + /internal/jwks. Issuer and audiences are the auth service's.
 */
export const tokenEnv = {
  AUTH_URL: env.url('http://127.0.0.1:8081', ['http:', 'https:']),
  /** Where the tokens' public keys are fetched from; default: AUTH_URL + /internal/jwks. */
  AUTH_JWKS_URL: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : undefined))
    .refine((value) => value === undefined || /^https?:\/\/[^/]/.test(value), 'must be an http(s) URL'),
  /** The `iss` of every token and the `aud` of parties' access tokens. */
  AUTH_ISSUER: z.string().min(1).default('urn:bedrequest:auth'),
  AUTH_AUDIENCE: z.string().min(1).default('urn:bedrequest:api'),
  /** The `aud` of service tokens: only the services' internal APIs take them, never the public API. */
  SERVICE_TOKEN_AUDIENCE: z.string().min(1).default('urn:bedrequest:internal'),
  /**
   * How often the gateway reads auth's list of revoked tokens (docs/parties.md, "Disabling"): a
   * disabled person's access tokens are refused within about this long. At least 100 ms, so that a
   * slip of a unit cannot flood auth.
   */
  AUTH_REVOCATION_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(1_000),
};

/**
 * The secret a service presents to the auth service for its service tokens (and the auth service
 * checks them against). Required, with no default: it is a secret, so it comes from the
 * environment (`npm start` makes one for its run; production takes it from a secret store).
 */
export const serviceClientEnv = {
  SERVICE_CLIENT_SECRET: z
    .string({ error: 'required: the service client secret shared by the services and auth (at least 32 characters, e.g. `openssl rand -hex 32`)' })
    .min(32, 'must be at least 32 characters (e.g. `openssl rand -hex 32`)'),
};

/** The JWKS URL of tokenEnv. */
export function jwksUrlOf(config: { AUTH_URL: string; AUTH_JWKS_URL?: string | undefined }): URL {
  return new URL(config.AUTH_JWKS_URL ?? '/internal/jwks', config.AUTH_URL);
}

/** An id a key-encryption key is stored under with the data keys it wraps. */
const KEK_ID = /^[A-Za-z0-9._-]{1,64}$/;
const KEK_ID_RULE = 'letters, digits, ".", "_" or "-", at most 64';

/** Whether `text` is standard base64 of exactly 32 bytes (an AES-256 key). */
function isKey256(text: string): boolean {
  return /^[A-Za-z0-9+/]{43}=$/.test(text) && Buffer.from(text, 'base64').length === 32;
}

const optionalText = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value.trim() : undefined));

/**
 * The key-encryption keys (KEKs) of a service that encrypts data at rest (@bedrequest/crypto): the
 * current one wraps the service's data keys; previous ones still unwrap those they wrapped until an
 * admin command has re-wrapped them. The values are secrets: messages name the variable, never
 * repeat the value.
 */
export const dataKeyEnv = {
  /**
   * The current KEK: base64 of 32 random bytes (`openssl rand -base64 32`). Required in production;
   * unset elsewhere, a development KEK is generated once and kept in the service's schema.
   */
  DATA_KEK: requiredInProduction(
    optionalText.refine((value) => value === undefined || isKey256(value), 'must be base64 of 32 random bytes (e.g. `openssl rand -base64 32`)'),
    'base64 of 32 random bytes (e.g. `openssl rand -base64 32`), from a secret store',
  ),
  /** The id of DATA_KEK; default: `kek-` and 16 hex digits of its SHA-256. */
  DATA_KEK_ID: optionalText.refine((value) => value === undefined || KEK_ID.test(value), `must be ${KEK_ID_RULE} characters`),
  /**
   * KEKs that still unwrap data keys after a rotation: comma-separated `<id>:<base64>` (or just
   * `<base64>` for a key that was configured without DATA_KEK_ID).
   */
  DATA_PREVIOUS_KEKS: optionalText.transform((value, context) => {
    if (value === undefined) return [];
    const entries: { id?: string; key: string }[] = [];
    for (const [index, entry] of value
      .split(',')
      .map((part) => part.trim())
      .entries()) {
      const separator = entry.lastIndexOf(':');
      const id = separator === -1 ? undefined : entry.slice(0, separator);
      const key = entry.slice(separator + 1);
      if (id !== undefined && !KEK_ID.test(id)) {
        context.addIssue({ code: 'custom', message: `entry ${index + 1}: the id before ":" must be ${KEK_ID_RULE} characters` });
      } else if (!isKey256(key)) {
        context.addIssue({ code: 'custom', message: `entry ${index + 1}: must be [<id>:]<base64 of 32 bytes>` });
      } else {
        entries.push(id === undefined ? { key } : { id, key });
      }
    }
    return entries;
  }),
};
