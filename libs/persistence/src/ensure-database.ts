import { Client } from 'pg';
import { postgresUrlWithCa } from '@bedrequest/config';

/**
 * Creates the database named in `databaseUrl` when it does not exist yet, by connecting to the
 * server's `postgres` database. A concurrent creator (another service starting) is not an error.
 */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const url = new URL(databaseUrl);
  const database = decodeURIComponent(url.pathname.slice(1));
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(database)) throw new Error(`unusable database name "${database}"`);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: postgresUrlWithCa(url.toString()) });
  await client.connect();
  try {
    const existing = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (existing.rowCount) return;
    await client.query(`CREATE DATABASE "${database}"`);
  } catch (error) {
    // 42P04 duplicate_database, 23505 unique_violation: someone else created it first.
    const code = (error as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') throw error;
  } finally {
    await client.end();
  }
}
