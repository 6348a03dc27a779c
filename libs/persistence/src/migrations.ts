import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { postgresUrlWithCa } from '@bedrequest/config';

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
 * A migration is pending and the connection's role may not apply it: a service running as its
 * runtime role before its schema was provisioned for this release.
 */
export class PendingMigrationError extends Error {
  override name = 'PendingMigrationError';

  constructor(schema: string, migration: string) {
    super(
      `schema ${schema} lacks migration ${migration} and this role may not apply it: provision the database first ` +
        "(`npm run admin -- provision`, which applies the migrations as the schema's owner; docs/operations.md)",
    );
  }
}

/** Whether the current role may create objects in `schema` (its owner may; a runtime role may not). */
async function mayCreateIn(client: Client, schema: string): Promise<boolean> {
  const { rows } = await client.query<{ allowed: boolean }>(`SELECT has_schema_privilege($1, 'CREATE') AS allowed`, [schema]);
  return rows[0]?.allowed === true;
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
 *
 * `role`: the migrations run as that role (`SET ROLE`, for a provisioning administrator applying
 * them as the schema's owner role, docs/operations.md). A service's runtime role may not create
 * anything: with every migration applied it only reads `_migrations`; with one pending it fails
 * with one line saying to provision (PendingMigrationError).
 */
export async function applyMigrations(options: {
  databaseUrl: string;
  schema: string;
  migrations: readonly Migration[];
  role?: string;
}): Promise<MigrationResult> {
  const { schema, migrations } = options;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`unusable schema name "${schema}"`);
  const client = new Client({ connectionString: postgresUrlWithCa(options.databaseUrl) });
  await client.connect();
  try {
    if (options.role) await client.query(`SET ROLE ${client.escapeIdentifier(options.role)}`);
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`bedrequest-migrations:${schema}`]);
    // Created only where missing: IF NOT EXISTS still needs the right to create, which a runtime role lacks.
    const { rows: found } = await client.query<{ schema: string | null; table: string | null }>(
      `SELECT to_regnamespace($1) AS schema, to_regclass($2) AS table`,
      [`"${schema}"`, `"${schema}"."_migrations"`],
    );
    if (!found[0]?.schema) await client.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
    if (!found[0]?.table) {
      await client.query(
        `CREATE TABLE IF NOT EXISTS "${schema}"."_migrations" (
           name text PRIMARY KEY, checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
    }
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
        if (!(await mayCreateIn(client, schema))) throw new PendingMigrationError(schema, migration.name);
        await client.query(migration.sql);
        await client.query(`INSERT INTO "${schema}"."_migrations" (name, checksum) VALUES ($1, $2)`, [migration.name, migration.checksum]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        if (error instanceof PendingMigrationError) throw error;
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
