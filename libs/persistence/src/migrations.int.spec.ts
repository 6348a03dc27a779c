import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { applyMigrations, MigrationHistoryError, type Migration } from './migrations';

// Not from @bedrequest/testing, which depends on this library: the run's database from global setup.
const databaseUrl = process.env.DATABASE_URL ?? '';
const uniqueName = (label: string) => `${label}_${randomBytes(4).toString('hex')}`;

const migration = (name: string, sql: string): Migration => ({ name, sql, checksum: `sum-of-${sql}` });
const first = migration('0001_things', 'CREATE TABLE thing (id integer PRIMARY KEY)');
const second = migration('0002_more', 'ALTER TABLE thing ADD COLUMN label text');

describe('applyMigrations', () => {
  let client: Client;
  let schema: string;

  beforeEach(async () => {
    schema = uniqueName('migrations');
    client = new Client({ connectionString: databaseUrl });
    await client.connect();
  });
  afterEach(async () => {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  const columnsOfThing = async () =>
    (
      await client.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = $1 AND table_name = 'thing' ORDER BY 1`,
        [schema],
      )
    ).rows.map((row) => row.column_name);

  it('applies pending migrations in order into the service schema, once', async () => {
    expect(await applyMigrations({ databaseUrl, schema, migrations: [first] })).toEqual({ applied: ['0001_things'], alreadyApplied: 0 });
    expect(await applyMigrations({ databaseUrl, schema, migrations: [first, second] })).toEqual({ applied: ['0002_more'], alreadyApplied: 1 });
    expect(await applyMigrations({ databaseUrl, schema, migrations: [first, second] })).toEqual({ applied: [], alreadyApplied: 2 });
    expect(await columnsOfThing()).toEqual(['id', 'label']);
  });

  it('applies each migration once when several replicas start at the same time', async () => {
    const results = await Promise.all(Array.from({ length: 4 }, () => applyMigrations({ databaseUrl, schema, migrations: [first, second] })));
    expect(results.flatMap((result) => result.applied).sort()).toEqual(['0001_things', '0002_more']);
  });

  it('rolls a failing migration back completely and reports it', async () => {
    const broken = migration('0002_broken', 'ALTER TABLE thing ADD COLUMN label text; SELECT no_such_function()');
    await expect(applyMigrations({ databaseUrl, schema, migrations: [first, broken] })).rejects.toThrow(/migration 0002_broken of schema .* failed/);
    expect(await columnsOfThing()).toEqual(['id']);
    expect(await applyMigrations({ databaseUrl, schema, migrations: [first, second] })).toEqual({ applied: ['0002_more'], alreadyApplied: 1 });
  });

  it('refuses, with one line saying to reset it, a schema migrated with a history this release does not have, and changes nothing', async () => {
    await applyMigrations({ databaseUrl, schema, migrations: [first, second] });
    const baseline = migration('0001_baseline', 'CREATE TABLE thing (id integer PRIMARY KEY, label text, extra text)');
    const attempt = applyMigrations({ databaseUrl, schema, migrations: [baseline] });
    await expect(attempt).rejects.toThrow(MigrationHistoryError);
    await expect(attempt).rejects.toThrow(
      new RegExp(
        `^schema ${schema} holds migration 0001_things, which this release does not know .*: reset the development database \\(DROP SCHEMA "${schema}" CASCADE, or drop the database\\) and start again$`,
      ),
    );
    expect(await columnsOfThing()).toEqual(['id', 'label']);
  });

  it('refuses to run when an applied migration was edited afterwards', async () => {
    await applyMigrations({ databaseUrl, schema, migrations: [first] });
    const edited = { ...first, checksum: 'another' };
    await expect(applyMigrations({ databaseUrl, schema, migrations: [edited] })).rejects.toThrow(/changed after it was applied/);
  });
});
