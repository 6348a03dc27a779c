import { z } from 'zod';
import * as env from './env-schemas';

/**
 * The database block of a service that owns a PostgreSQL schema: the server, the schema's variable
 * (`INTAKE_DB_SCHEMA`, …; no other service reads that schema) and the pool size.
 */
export function databaseEnv<V extends string>(schemaVariable: V, schema: string) {
  return {
    DATABASE_URL: env.url('postgresql://postgres@127.0.0.1:5432/bedrequest', ['postgresql:', 'postgres:']),
    DATABASE_POOL_SIZE: env.positiveInt(10),
    ...({ [schemaVariable]: env.schemaName(schema) } as Record<V, ReturnType<typeof env.schemaName>>),
  };
}

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
