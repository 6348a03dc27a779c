import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';

/** Distinct statements kept prepared per connection: the services' own hot paths are a few dozen. */
const MAX_PREPARED_STATEMENTS = 500;
const names = new Map<string, string>();

/**
 * The name under which a statement stays prepared on each connection, or undefined for one not to
 * keep. PostgreSQL then parses a statement once per connection and, after a few runs, plans it once
 * (a generic plan): on our hot paths (a handful of set-based statements whose text never changes)
 * that halves PostgreSQL's CPU per statement. Statements are never released, so only the first
 * `MAX_PREPARED_STATEMENTS` texts get a name; texts that vary (Prisma's IN-lists of varying length)
 * beyond that run unnamed as before.
 */
export function preparedStatementName(sql: string): string | undefined {
  const known = names.get(sql);
  if (known || names.size >= MAX_PREPARED_STATEMENTS) return known;
  const name = `s_${createHash('sha1').update(sql).digest('base64url')}`;
  names.set(sql, name);
  return name;
}

/**
 * The pg driver adapter for a service's Prisma client, bound to the service's own schema: every
 * service owns one PostgreSQL schema and never reads another's. Statements are prepared once per
 * connection (preparedStatementName).
 */
export function createPrismaAdapter(options: { databaseUrl: string; schema: string; poolSize?: number }): PrismaPg {
  return new PrismaPg(
    { connectionString: options.databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 },
    // The adapter's type asks for a string; undefined (not kept) is what pg expects for an unnamed statement.
    { schema: options.schema, statementNameGenerator: (query) => preparedStatementName(query.sql) as string },
  );
}
