import { Client } from 'pg';
import { applyMigrations, readMigrations } from '@bedrequest/persistence';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { INTAKE_MIGRATIONS_DIR } from './database';

const REQUEST = '1b4e28ba-2fa1-41d2-883f-0016d3cca427';
const OTHER_REQUEST = '1b4e28ba-2fa1-41d2-883f-0016d3cca428';

/**
 * Migration 0006 on the rows release 1.0 left: each version and document names who sent it. A party
 * of release 1.0 had one user, whose id the party took (docs/parties.md), so that is its referrer's
 * party id.
 */
describe('intake migration 0006_change_authors', () => {
  const databaseUrl = testEnvironment().databaseUrl;
  const schema = uniqueName('intake_0006');
  const migrations = readMigrations(INTAKE_MIGRATIONS_DIR);
  let client: Client;

  beforeAll(async () => {
    client = new Client({ connectionString: databaseUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });

  it("names the referrer's party as the sender of every version and document stored before, and lets an intake of 1.0 still store rows", async () => {
    const before = migrations.findIndex((migration) => migration.name === '0006_change_authors');
    expect(before).toBeGreaterThan(0);
    await applyMigrations({ databaseUrl, schema, migrations: migrations.slice(0, before) });
    // As intake 1.0 wrote them (request-batch-write.ts of that release); the sealed columns' content does not matter here.
    await client.query(
      `INSERT INTO "${schema}".admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at) VALUES
        ($1, 'https://a.example/fhir/ServiceRequest/1', 'party-a', '260000001', 'active', 'order', 2, 'h2', now()),
        ($2, 'https://b.example/fhir/ServiceRequest/1', 'party-b', '260000002', 'active', 'proposal', 1, 'h3', now())`,
      [REQUEST, OTHER_REQUEST],
    );
    await client.query(
      `INSERT INTO "${schema}".request_version (request_id, version, sealed_bundle, sealed_summary, canonical_hash, message_id, received_at) VALUES
        ($1, 1, '\\x00', '\\x00', 'h1', gen_random_uuid(), now()), ($1, 2, '\\x00', '\\x00', 'h2', gen_random_uuid(), now()),
        ($2, 1, '\\x00', '\\x00', 'h3', gen_random_uuid(), now())`,
      [REQUEST, OTHER_REQUEST],
    );
    await client.query(
      `INSERT INTO "${schema}".request_document (id, request_id, sealed_bundle, canonical_hash, message_id, received_at) VALUES
        (gen_random_uuid(), $1, '\\x00', 'd1', gen_random_uuid(), now()), (gen_random_uuid(), $2, '\\x00', 'd2', gen_random_uuid(), now())`,
      [REQUEST, OTHER_REQUEST],
    );

    // This migration alone: later ones are tested on their own.
    expect(await applyMigrations({ databaseUrl, schema, migrations: migrations.slice(0, before + 1) })).toEqual({
      applied: ['0006_change_authors'],
      alreadyApplied: before,
    });

    const versions = await client.query(`SELECT request_id, version, submitted_by FROM "${schema}".request_version ORDER BY request_id, version`);
    expect(versions.rows).toEqual([
      { request_id: REQUEST, version: 1, submitted_by: 'party-a' },
      { request_id: REQUEST, version: 2, submitted_by: 'party-a' },
      { request_id: OTHER_REQUEST, version: 1, submitted_by: 'party-b' },
    ]);
    const documents = await client.query(`SELECT request_id, submitted_by FROM "${schema}".request_document ORDER BY request_id`);
    expect(documents.rows).toEqual([
      { request_id: REQUEST, submitted_by: 'party-a' },
      { request_id: OTHER_REQUEST, submitted_by: 'party-b' },
    ]);
    // An intake of release 1.0, still running during the rolling update, stores a document as before.
    await client.query(
      `INSERT INTO "${schema}".request_document (id, request_id, sealed_bundle, canonical_hash, message_id, received_at)
       VALUES (gen_random_uuid(), $1, '\\x00', 'd3', gen_random_uuid(), now())`,
      [REQUEST],
    );
    const fromOldIntake = await client.query(`SELECT submitted_by FROM "${schema}".request_document WHERE canonical_hash = 'd3'`);
    expect(fromOldIntake.rows).toEqual([{ submitted_by: null }]);
  });
});
