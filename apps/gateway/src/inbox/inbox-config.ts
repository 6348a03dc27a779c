import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/**
 * The inbox's variables, for GatewayConfig (`...inboxEnv`). `INBOX_CSRF_SECRET` keys the HMAC of the
 * inbox's CSRF tokens; every gateway process of a deployment needs the same one. Unset outside
 * production: a fixed development key. Required in production (`inboxCsrfSecretOf` refuses to start).
 */
export const inboxEnv = {
  INBOX_CSRF_SECRET: z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : undefined))
    .refine((value) => value === undefined || value.length >= 32, 'must be at least 32 characters (e.g. `openssl rand -hex 32`)'),
};

/**
 * Outside production without a configured key: a random key per process, never one written in the
 * repository. A restart only makes the open inbox pages' CSRF tokens stale (the next page load
 * gets new ones); several gateway processes sharing sessions need `INBOX_CSRF_SECRET`.
 */
export const DEVELOPMENT_CSRF_SECRET = randomBytes(32).toString('hex');

export class InboxConfigError extends Error {
  override name = 'InboxConfigError';
}

/** The CSRF key to use: the configured one, or in development and tests the process's random one. */
export function inboxCsrfSecretOf(config: { NODE_ENV: string; INBOX_CSRF_SECRET?: string | undefined }): string {
  if (config.INBOX_CSRF_SECRET) return config.INBOX_CSRF_SECRET;
  if (config.NODE_ENV === 'production') throw new InboxConfigError('INBOX_CSRF_SECRET is required in production (at least 32 characters, e.g. `openssl rand -hex 32`)');
  return DEVELOPMENT_CSRF_SECRET;
}
