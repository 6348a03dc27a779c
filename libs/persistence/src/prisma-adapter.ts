import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { postgresUrlWithCa } from '@bedrequest/config';

/** Distinct statements kept prepared per connection: the services' own hot paths are a few dozen. */
const MAX_PREPARED_STATEMENTS = 500;
const names = new Map<string, string>();

/**
 * The name under which a statement stays prepared on each connection, or undefined for one not to
 * keep. PostgreSQL then parses a statement once per connection and, after a few runs, plans it once
 * (a generic plan): for a statement such as the Task search by identifier that saves most of
 * PostgreSQL's CPU per call (measured: +60 % searches per second).
 *
 * Not for a statement with array parameters (`$1::uuid[]`, the set-based batch statements): a
 * generic plan cannot know how many elements an array holds, and PostgreSQL's guess made it scan
 * whole tables (measured: 3,800 buffers per call of the notifier's record statement, growing with
 * the table, against 90 with a plan made for the actual arrays). Those are planned for every call.
 *
 * Statements are never released, so only the first `MAX_PREPARED_STATEMENTS` texts get a name;
 * texts that vary (Prisma's IN-lists of varying length) beyond that run unnamed as before.
 */
export function preparedStatementName(sql: string): string | undefined {
  if (sql.includes('[]')) return undefined;
  const known = names.get(sql);
  if (known || names.size >= MAX_PREPARED_STATEMENTS) return known;
  const name = `s_${createHash('sha1').update(sql).digest('base64url')}`;
  names.set(sql, name);
  return name;
}

/**
 * The pg driver adapter for a service's Prisma client, bound to the service's own schema: every
 * service owns one PostgreSQL schema and never reads another's. Statements are prepared once per
 * connection (preparedStatementName). The adapter hands the URL to pg, which reads its sslmode and
 * sslrootcert (TLS_CA_FILE where the URL names no CA: @bedrequest/config, postgresUrlWithCa).
 */
export function createPrismaAdapter(options: { databaseUrl: string; schema: string; poolSize?: number }): PrismaPg {
  return new PrismaPg(
    { connectionString: postgresUrlWithCa(options.databaseUrl), max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 },
    // The adapter's type asks for a string; undefined (not kept) is what pg expects for an unnamed statement.
    { schema: options.schema, statementNameGenerator: (query) => preparedStatementName(query.sql) as string },
  );
}
