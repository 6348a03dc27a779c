import { Pool } from 'pg';
import { postgresUrlWithCa } from '@bedrequest/config';

/**
 * Host, port and database of a connection URL, for messages: never the user or password. An
 * unreadable URL is named as such rather than quoted.
 */
export function describeDatabase(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
  } catch {
    return 'an unreadable DATABASE_URL';
  }
}

/** Raw statements with positional parameters, answered with their rows. */
export interface PlainSqlClient {
  query<Row>(text: string, values: unknown[]): Promise<Row[]>;
  end(): Promise<void>;
}

/**
 * A small pg pool for statements Prisma's raw queries do not pass unchanged: arrays of bytea
 * values (the key commands' re-encryption compares each row's old ciphertext with such an array,
 * and through `$queryRawUnsafe` some rows no longer compared equal, so they were skipped as
 * "changed meanwhile").
 */
export function openPlainSql(databaseUrl: string, connections = 1): PlainSqlClient {
  const pool = new Pool({ connectionString: postgresUrlWithCa(databaseUrl), max: connections });
  return {
    query: async <Row>(text: string, values: unknown[]) => (await pool.query(text, values)).rows as Row[],
    end: () => pool.end(),
  };
}

/**
 * A command line's session on a service's schema: the service's own client (its opener migrates
 * first) and a plain pg pool beside it (see openPlainSql), closed together. A database that does not
 * open is named in the error (host, port, database; never the credentials); whatever `build` fails
 * on closes both again.
 */
export async function openPlainSqlSession<Db extends { $disconnect(): Promise<void> }, S>(
  databaseUrl: string,
  open: () => Promise<Db>,
  build: (db: Db, sql: PlainSqlClient) => Promise<S>,
): Promise<{ services: S; close(): Promise<void> }> {
  const db = await open().catch((error: unknown) => {
    throw new Error(`cannot open the database at ${describeDatabase(databaseUrl)}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const sql = openPlainSql(databaseUrl);
  const close = async () => {
    await sql.end();
    await db.$disconnect();
  };
  try {
    return { services: await build(db, sql), close };
  } catch (error) {
    await close();
    throw error;
  }
}
