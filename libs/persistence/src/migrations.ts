import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

export interface Migration {
  /** Folder name, e.g. `0001_init`; migrations run in this order. */
  readonly name: string;
  readonly sql: string;
  readonly checksum: string;
}

export interface MigrationResult {
  readonly applied: string[];
  readonly alreadyApplied: number;
}

/** Reads `<dir>/<name>/migration.sql` (Prisma's layout), sorted by name. */
export function readMigrations(migrationsDir: string): Migration[] {
  // A missing folder is a packaging error, not "nothing to migrate": the service would run on no tables.
  if (!existsSync(migrationsDir)) throw new Error(`no migrations folder at ${migrationsDir}`);
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * The schema was migrated by a build this release does not know: one from before 1.0, whose
 * migrations were squashed into the 1.0 baseline (docs/compatibility.md), or a newer one. Nothing is
 * changed; a development database of that time is reset, never patched up.
 */
export class MigrationHistoryError extends Error {
  override name = 'MigrationHistoryError';

  constructor(schema: string, migration: string) {
    super(
      `schema ${schema} holds migration ${migration}, which this release does not know (a development database from before 1.0, or from a newer build): ` +
        `reset the development database (DROP SCHEMA "${schema}" CASCADE, or drop the database) and start again`,
    );
  }
}

/**
 * Applies the service's pending migrations to its own PostgreSQL schema.
 *
 * `prisma migrate deploy` needs Prisma's native schema engine, which cannot be downloaded on our
 * build machines, so the versioned SQL files Prisma's layout uses are applied here instead: under a
 * session advisory lock (several replicas may start at once), each migration in its own transaction
 * together with its row in `_migrations`, so a failed migration leaves nothing half-applied. An
 * applied migration whose file changed since is an error: migrations are append-only; so is an
 * applied migration this release does not have (MigrationHistoryError).
 */
export async function applyMigrations(options: { databaseUrl: string; schema: string; migrations: readonly Migration[] }): Promise<MigrationResult> {
  const { schema, migrations } = options;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`unusable schema name "${schema}"`);
  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`bedrequest-migrations:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS "${schema}"."_migrations" (
         name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    );
    const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "${schema}"."_migrations"`);
    const applied = new Map(rows.map((row) => [row.name, row.checksum]));
    const known = new Set(migrations.map((migration) => migration.name));
    const foreign = rows
      .map((row) => row.name)
      .filter((name) => !known.has(name))
      .sort();
    if (foreign.length > 0) throw new MigrationHistoryError(schema, foreign[0]!);
    const newlyApplied: string[] = [];
    for (const migration of migrations) {
      const checksum = applied.get(migration.name);
      if (checksum !== undefined) {
        if (checksum !== migration.checksum) {
          throw new Error(`migration ${migration.name} of schema ${schema} was changed after it was applied`);
        }
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(`SET LOCAL search_path TO "${schema}"`);
        await client.query(migration.sql);
        await client.query(`INSERT INTO "${schema}"."_migrations" (name, checksum) VALUES ($1, $2)`, [migration.name, migration.checksum]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw new Error(`migration ${migration.name} of schema ${schema} failed: ${(error as Error).message}`);
      }
      newlyApplied.push(migration.name);
    }
    return { applied: newlyApplied, alreadyApplied: migrations.length - newlyApplied.length };
  } finally {
    await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`bedrequest-migrations:${schema}`]).catch(() => undefined);
    await client.end();
  }
}
