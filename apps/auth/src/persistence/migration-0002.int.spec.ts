import { Client } from 'pg';
import { applyMigrations, readMigrations } from '@bedrequest/persistence';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { AUTH_MIGRATIONS_DIR } from './database';

/**
 * Migration 0002 (docs/parties.md, "Parties and people") on the rows release 1.0 left: every user
 * becomes the one user of a party that takes its id, so that the `sub` of its tokens, and every
 * party id intake and the notifier stored, keeps naming it.
 */
describe('auth migration 0002_parties', () => {
  const databaseUrl = testEnvironment().databaseUrl;
  const schema = uniqueName('auth_0002');
  // Up to 0002: the later ones have tests of their own.
  const migrations = readMigrations(AUTH_MIGRATIONS_DIR).slice(0, 2);
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: databaseUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it('gives every user of release 1.0 a party with its id, role, IK numbers, FHIR base and disabled state', async () => {
    expect(migrations.map((migration) => migration.name)).toEqual(['0001_baseline', '0002_parties']);
    await applyMigrations({ databaseUrl, schema, migrations: migrations.slice(0, 1) });
    // As auth 1.0 wrote them (apps/auth/src/users/user.repository.ts of that release).
    await client.query(
      `INSERT INTO "${schema}".user_account (id, username, password_hash, role, ik_numbers, fhir_base, disabled_at, created_at, updated_at) VALUES
        ('6f1c2a3e-0000-4000-8000-000000000001', 'fx-hospital', '$argon2id$x', 'referrer', '{260000001,260000002}', 'https://fx.example/fhir', NULL, '2026-01-02T03:04:05.678Z', '2026-01-03T00:00:00Z'),
        ('6f1c2a3e-0000-4000-8000-000000000002', 'fx-waldsee', '$argon2id$y', 'clinic', '{510000001}', NULL, NULL, '2026-01-04T00:00:00Z', '2026-01-04T00:00:00Z'),
        ('6f1c2a3e-0000-4000-8000-000000000003', 'fx-gone', '$argon2id$z', 'referrer', '{260000009}', 'https://gone.example/fhir', '2026-02-01T10:00:00.123Z', '2026-01-05T00:00:00Z', '2026-02-01T10:00:00.123Z')`,
    );

    expect(await applyMigrations({ databaseUrl, schema, migrations })).toEqual({ applied: ['0002_parties'], alreadyApplied: 1 });

    const parties = await client.query(
      `SELECT id, role, name, ik_numbers, fhir_base, contact_email, disabled_at, created_at FROM "${schema}".party ORDER BY name`,
    );
    expect(parties.rows).toEqual([
      {
        id: '6f1c2a3e-0000-4000-8000-000000000003',
        role: 'referrer',
        name: 'fx-gone',
        ik_numbers: ['260000009'],
        fhir_base: 'https://gone.example/fhir',
        contact_email: null,
        disabled_at: new Date('2026-02-01T10:00:00.123Z'),
        created_at: new Date('2026-01-05T00:00:00Z'),
      },
      {
        id: '6f1c2a3e-0000-4000-8000-000000000001',
        role: 'referrer',
        name: 'fx-hospital',
        ik_numbers: ['260000001', '260000002'],
        fhir_base: 'https://fx.example/fhir',
        contact_email: null,
        disabled_at: null,
        created_at: new Date('2026-01-02T03:04:05.678Z'),
      },
      {
        id: '6f1c2a3e-0000-4000-8000-000000000002',
        role: 'clinic',
        name: 'fx-waldsee',
        ik_numbers: ['510000001'],
        fhir_base: null,
        contact_email: null,
        disabled_at: null,
        created_at: new Date('2026-01-04T00:00:00Z'),
      },
    ]);
    const users = await client.query(
      `SELECT id, username, password_hash, party_id, display_name, email, administrator, disabled_at FROM "${schema}".user_account ORDER BY username`,
    );
    expect(users.rows).toEqual([
      {
        id: '6f1c2a3e-0000-4000-8000-000000000003',
        username: 'fx-gone',
        password_hash: '$argon2id$z',
        party_id: '6f1c2a3e-0000-4000-8000-000000000003',
        display_name: 'fx-gone',
        email: null,
        administrator: false,
        disabled_at: new Date('2026-02-01T10:00:00.123Z'),
      },
      {
        id: '6f1c2a3e-0000-4000-8000-000000000001',
        username: 'fx-hospital',
        password_hash: '$argon2id$x',
        party_id: '6f1c2a3e-0000-4000-8000-000000000001',
        display_name: 'fx-hospital',
        email: null,
        administrator: false,
        disabled_at: null,
      },
      {
        id: '6f1c2a3e-0000-4000-8000-000000000002',
        username: 'fx-waldsee',
        password_hash: '$argon2id$y',
        party_id: '6f1c2a3e-0000-4000-8000-000000000002',
        display_name: 'fx-waldsee',
        email: null,
        administrator: false,
        disabled_at: null,
      },
    ]);
  });

  it('refuses a user without a party, and keeps the old columns for auth 1.0 processes of a rollout', async () => {
    await expect(client.query(`INSERT INTO "${schema}".user_account (username, password_hash, display_name) VALUES ('orphan', 'h', 'Orphan')`)).rejects.toThrow(
      /party_id/,
    );
    const party = await client.query<{ id: string }>(
      `INSERT INTO "${schema}".party (role, name, ik_numbers, fhir_base) VALUES ('clinic', 'Waldsee', '{510000002}', NULL) RETURNING id`,
    );
    // A second person of a party: no role, IK numbers or FHIR base of its own (docs/compatibility.md, "1.1").
    await client.query(`INSERT INTO "${schema}".user_account (username, password_hash, party_id, display_name) VALUES ('second', 'h', $1, 'Second Person')`, [
      party.rows[0]!.id,
    ]);
    await expect(
      client.query(`INSERT INTO "${schema}".party (role, name, ik_numbers, fhir_base) VALUES ('clinic', 'Two', '{510000001,510000002}', NULL)`),
    ).rejects.toThrow(/party_clinic_has_one_ik/);
    await expect(
      client.query(`INSERT INTO "${schema}".party (role, name, ik_numbers, fhir_base) VALUES ('referrer', 'No base', '{260000001}', NULL)`),
    ).rejects.toThrow(/party_referrer_has_fhir_base/);
  });
});
