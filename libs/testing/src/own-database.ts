import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { ensureDatabase } from '@bedrequest/persistence';
import { testEnvironment } from './environment';

export interface OwnDatabase {
  /** The database's URL: a stack's `DATABASE_URL`. */
  url: string;
  /** Drops it, closing whatever is still connected. */
  drop(): Promise<void>;
}

/**
 * A database of the test's own beside the run's, for a test that must look at a whole database
 * (a `pg_dump` of everything, docs/data-protection.md) without meeting other tests' rows. Named
 * after the run's database, so that the run's teardown drops it should the test not get to.
 */
export async function ownDatabase(label: string): Promise<OwnDatabase> {
  const runUrl = new URL(testEnvironment().databaseUrl);
  const name = `${decodeURIComponent(runUrl.pathname.slice(1))}_${label}_${randomBytes(3).toString('hex')}`.toLowerCase();
  const url = new URL(runUrl);
  url.pathname = `/${name}`;
  // ensureDatabase refuses a name that is not plain letters, digits, `_` and `-`.
  await ensureDatabase(url.toString());
  return {
    url: url.toString(),
    drop: async () => {
      const client = new Client({ connectionString: runUrl.toString() });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
