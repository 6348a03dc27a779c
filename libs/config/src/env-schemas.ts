import { z } from 'zod';
import { compile as compileProxyList } from 'proxy-addr';

/** Reusable parsers for environment variables (all env values arrive as strings). */

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

export const url = (fallback: string, protocols: readonly string[]) =>
  z
    .string()
    .default(fallback)
    .refine(
      (value) => {
        try {
          return protocols.includes(new URL(value).protocol);
        } catch {
          return false;
        }
      },
      `must be a URL with protocol ${protocols.join(' or ')}`,
    );

/**
 * One URL, or several separated by commas (the nodes of one cluster, each a whole URL with its
 * credentials): every one must be a URL with one of `protocols`. The value stays the string it was;
 * `urlsOf` splits it.
 */
export const urlList = (fallback: string, protocols: readonly string[]) =>
  z
    .string()
    .default(fallback)
    .refine(
      (value) => {
        const urls = urlsOf(value);
        return (
          urls.length > 0 &&
          urls.every((each) => {
            try {
              return protocols.includes(new URL(each).protocol);
            } catch {
              return false;
            }
          })
        );
      },
      `must be a URL with protocol ${protocols.join(' or ')}, or several separated by commas`,
    );

/** The URLs of a `urlList` value, in the order given (empty parts left out). */
export function urlsOf(value: string): string[] {
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

export const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((value) => ['true', '1', 'yes'].includes(value));

/** A switch whose default depends on NODE_ENV: unset, it stays undefined and the service decides. */
export const optionalBool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .optional()
  .transform((value) => (value === undefined ? undefined : ['true', '1', 'yes'].includes(value)));

export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

/**
 * Unset means production: a deployment that forgets NODE_ENV gets the production guards rather than
 * the development shortcuts. Blank (`NODE_ENV=`, an empty line of an env file) is unset, as for the
 * production rule (production-rule.ts). `npm start` and the other npm scripts ask for development themselves.
 */
export const nodeEnv = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z.enum(['development', 'test', 'production']).default('production'),
);

/** A name safe to use as a prefix of broker objects, Redis keys and database names. */
export const namespace = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .refine((value) => /^[a-z][a-z0-9_-]{0,40}$/.test(value), 'must be lower-case letters, digits, "-" or "_"');

/** A PostgreSQL schema name a service owns. */
export const schemaName = (fallback: string) =>
  z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be lower-case letters, digits or "_"')
    .default(fallback);

/**
 * `TRUSTED_PROXIES`: a comma- (or space-) separated list of IPv4/IPv6 addresses, CIDR ranges
 * (`10.0.0.0/8`, `fd00::/8`) and proxy-addr's names `loopback`, `linklocal`, `uniquelocal`; empty by
 * default. Each entry is checked the way express will read it (proxy-addr), so that a typo stops
 * the start instead of trusting nobody or everybody.
 */
export const trustedProxies = z
  .string()
  .default('')
  .transform((value, context) => {
    const entries = value.split(/[\s,]+/).filter(Boolean);
    for (const entry of entries) {
      try {
        compileProxyList([entry]);
      } catch {
        context.addIssue({ code: 'custom', message: `"${entry.slice(0, 64)}" is not an IP address, a CIDR range or one of loopback, linklocal, uniquelocal` });
      }
    }
    return entries;
  });
