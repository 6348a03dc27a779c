import { z } from 'zod';

/** Reusable parsers for environment variables (all env values arrive as strings). */

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const url = (fallback: string, protocols: readonly string[]) =>
  z
    .string()
    .default(fallback)
    .refine((value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, `must be a URL with protocol ${protocols.join(' or ')}`);

export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((value) => ['true', '1', 'yes'].includes(value));

export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

export const nodeEnv = z.enum(['development', 'test', 'production']).default('development');

/** A name safe to use as a prefix of broker objects, Redis keys and database names. */
export const namespace = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((value) => /^[a-z][a-z0-9_-]{0,40}$/.test(value), 'must be lower-case letters, digits, "-" or "_"');

/** A PostgreSQL schema name a service owns. */
export const schemaName = (fallback: string) => z.string().regex(/^[a-z_][a-z0-9_]*$/, 'must be lower-case letters, digits or "_"').default(fallback);
