import { Client } from 'pg';
import { applyMigrations, readMigrations } from '@bedrequest/persistence';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { AUTH_MIGRATIONS_DIR } from './database';

/**
 * Migration 0003 (docs/parties.md, "Disabling"): people and parties disabled before it get their
 * tokens revoked from the moment they were disabled, so that an access token issued in the hour
 * before the upgrade is refused like one issued before a later disable.
 */
describe('auth migration 0003_token_revocation', () => {
  const databaseUrl = testEnvironment().databaseUrl;
  const schema = uniqueName('auth_0003');
  const migrations = readMigrations(AUTH_MIGRATIONS_DIR);
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: databaseUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('revokes the tokens of whoever was disabled, from when they were, and of nobody else', async () => {
    expect(migrations.map((migration) => migration.name).slice(0, 3)).toEqual(['0001_baseline', '0002_parties', '0003_token_revocation']);
    await applyMigrations({ databaseUrl, schema, migrations: migrations.slice(0, 2) });
    const party = (disabledAt: string | null) =>
      client
        .query<{ id: string }>(
          `INSERT INTO "${schema}".party (role, name, ik_numbers, disabled_at) VALUES ('clinic', 'Waldsee', '{510000001}', $1) RETURNING id`,
          [disabledAt],
        )
        .then((result) => result.rows[0]!.id);
    const [open, closed] = [await party(null), await party('2026-03-01T08:00:00.250Z')];
    await client.query(
      `INSERT INTO "${schema}".user_account (username, password_hash, party_id, display_name, disabled_at) VALUES
        ('fx-working', 'h', $1, 'Working', NULL), ('fx-left', 'h', $1, 'Left', '2026-02-01T10:00:00.123Z'), ('fx-closed', 'h', $2, 'Closed', NULL)`,
      [open, closed],
    );

    expect(await applyMigrations({ databaseUrl, schema, migrations: migrations.slice(0, 3) })).toEqual({
      applied: ['0003_token_revocation'],
      alreadyApplied: 2,
    });

    const users = await client.query(`SELECT username, tokens_revoked_at FROM "${schema}".user_account ORDER BY username`);
    expect(users.rows).toEqual([
      { username: 'fx-closed', tokens_revoked_at: null },
      { username: 'fx-left', tokens_revoked_at: new Date('2026-02-01T10:00:00.123Z') },
      { username: 'fx-working', tokens_revoked_at: null },
    ]);
    const parties = await client.query(`SELECT id, tokens_revoked_at FROM "${schema}".party`);
    expect(Object.fromEntries(parties.rows.map((row: { id: string; tokens_revoked_at: Date | null }) => [row.id, row.tokens_revoked_at]))).toEqual({
      [open]: null,
      [closed]: new Date('2026-03-01T08:00:00.250Z'),
    });
  });
});
