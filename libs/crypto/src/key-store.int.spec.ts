import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { openDataKeyring } from './from-config';
import { KEY_TABLES_SQL, SqlKeyStore, type SqlClient } from './key-store';
import { reencryptColumn } from './rotation';
import { dataKeyIdOf } from './sealed-value';
import { SqlSealedColumn } from './sql-sealed-column';

describe('the key tables in PostgreSQL', () => {
  const schema = uniqueName('crypto');
  let pool: Pool;
  let sql: SqlClient;

  beforeAll(async () => {
    pool = new Pool({ connectionString: testEnvironment().databaseUrl, max: 4 });
    sql = { query: async <Row>(text: string, values: unknown[]) => (await pool.query(text, values)).rows as Row[] };
    await pool.query(`CREATE SCHEMA "${schema}"; SET search_path TO "${schema}"; ${KEY_TABLES_SQL}
      CREATE TABLE clinic_note (id bigint PRIMARY KEY, sealed_note bytea);`);
  });

  afterAll(async () => {
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  beforeEach(() => pool.query(`TRUNCATE "${schema}".data_key, "${schema}".development_kek, "${schema}".fingerprint_key`));

  const config = { NODE_ENV: 'production' as const, DATA_KEK: randomBytes(32).toString('base64'), DATA_KEK_ID: 'kek-a' };
  const context = 'delivery:data:0b6c1f7e-5d7a-4f43-8c1e-52a1b0d1c001';

  it('keeps wrapped data keys with their KEK id, newest per KEK, and re-wraps only from the KEK read', async () => {
    const store = new SqlKeyStore(sql, schema);
    await store.add({ id: '0b6c1f7e-5d7a-4f43-8c1e-000000000001', wrappedKey: Buffer.from('first'), kekId: 'kek-a' });
    await store.add({ id: '0b6c1f7e-5d7a-4f43-8c1e-000000000002', wrappedKey: Buffer.from('second'), kekId: 'kek-a' });
    await store.add({ id: '0b6c1f7e-5d7a-4f43-8c1e-000000000003', wrappedKey: Buffer.from('third'), kekId: 'kek-b' });

    expect((await store.all()).map((key) => key.id.slice(-1))).toEqual(['1', '2', '3']);
    expect((await store.newestWrappedBy('kek-a'))?.id).toBe('0b6c1f7e-5d7a-4f43-8c1e-000000000002');
    const found = await store.find('0b6c1f7e-5d7a-4f43-8c1e-000000000003');
    expect(found).toMatchObject({ kekId: 'kek-b', createdAt: expect.any(Date) });
    expect(Buffer.from(found!.wrappedKey).toString()).toBe('third');
    expect(await store.find('0b6c1f7e-5d7a-4f43-8c1e-000000000009')).toBeUndefined();

    expect(await store.rewrap('0b6c1f7e-5d7a-4f43-8c1e-000000000003', Buffer.from('rewrapped'), 'kek-a', 'kek-c')).toBe(false);
    expect(await store.rewrap('0b6c1f7e-5d7a-4f43-8c1e-000000000003', Buffer.from('rewrapped'), 'kek-a', 'kek-b')).toBe(true);
    expect(await store.find('0b6c1f7e-5d7a-4f43-8c1e-000000000003')).toMatchObject({ kekId: 'kek-a' });
  });

  it('keeps the development KEK for the next start; a second one stored at once is not an error', async () => {
    const store = new SqlKeyStore(sql, schema);
    const first = await openDataKeyring({ NODE_ENV: 'development' }, { sql, schema });
    const sealed = first.keyring.seal('Befund', context);
    expect(first.development).toBe(true);
    await store.addDevelopmentKek((await store.developmentKeks())[0]!.id, randomBytes(32));
    expect(await store.developmentKeks()).toHaveLength(1);
    const restarted = await openDataKeyring({ NODE_ENV: 'development' }, { sql, schema });
    expect(await restarted.keyring.openText(sealed, context)).toBe('Befund');
  });

  it('replicas starting at once with a new KEK open what each other sealed, and agree on one data key at the next refresh', async () => {
    const replicas = await Promise.all([1, 2, 3].map(() => openDataKeyring(config, { sql, schema })));
    const sealed = replicas.map(({ keyring }, index) => keyring.seal(`Notiz ${index}`, context));
    for (const { keyring } of replicas) {
      expect(await Promise.all(sealed.map((value) => keyring.openText(value, context)))).toEqual(['Notiz 0', 'Notiz 1', 'Notiz 2']);
      await keyring.refresh();
    }
    expect(new Set(replicas.map(({ keyring }) => keyring.currentKeyId)).size).toBe(1);
    expect(dataKeyIdOf(replicas[0]!.keyring.seal('x', context))).toBe(replicas[2]!.keyring.currentKeyId);
  });

  it('a new KEK with the old one among the previous opens old rows and seals under a data key of its own', async () => {
    const before = await openDataKeyring(config, { sql, schema });
    const sealed = before.keyring.seal('Notiz', context);
    const rotated = {
      ...config,
      DATA_KEK: randomBytes(32).toString('base64'),
      DATA_KEK_ID: 'kek-b',
      DATA_PREVIOUS_KEKS: [{ id: 'kek-a', key: config.DATA_KEK }],
    };
    const after = await openDataKeyring(rotated, { sql, schema });
    expect(after.keyring.currentKeyId).not.toBe(before.keyring.currentKeyId);
    expect(await after.keyring.openText(sealed, context)).toBe('Notiz');
    const { rows } = await pool.query<{ kek_id: string }>(`SELECT kek_id FROM "${schema}".data_key ORDER BY created_at`);
    expect(rows.map((row) => row.kek_id)).toEqual(['kek-a', 'kek-b']);
  });

  it('replicas making the fingerprint key at once all take the one stored first; it is re-wrapped only from the KEK read', async () => {
    const replicas = await Promise.all([1, 2, 3, 4].map(() => openDataKeyring(config, { sql, schema })));
    const keys = await Promise.all(replicas.map(({ keyring }) => keyring.fingerprintKey()));
    expect(new Set(keys.map((key) => key.id)).size).toBe(1);
    expect(new Set(keys.map((key) => key.of('Befund'))).size).toBe(1);
    const { rows } = await pool.query<{ id: string; kek_id: string; wrapped_key: Buffer }>(
      `SELECT id::text AS id, kek_id, wrapped_key FROM "${schema}".fingerprint_key`,
    );
    expect(rows).toEqual([{ id: keys[0]!.id, kek_id: 'kek-a', wrapped_key: expect.any(Buffer) }]);
    expect(rows[0]!.wrapped_key).toHaveLength(12 + 16 + 32);

    const store = new SqlKeyStore(sql, schema);
    expect(await store.rewrapFingerprintKey(keys[0]!.id, Buffer.from('rewrapped'), 'kek-b', 'kek-c')).toBe(false);
    expect(await store.rewrapFingerprintKey(keys[0]!.id, Buffer.from('rewrapped'), 'kek-b', 'kek-a')).toBe(true);
    expect(await store.fingerprintKey()).toMatchObject({ id: keys[0]!.id, kekId: 'kek-b' });
  });

  it('wraps the fingerprint key with the development KEK too, and keeps it across restarts and a new DATA_KEK', async () => {
    const first = await openDataKeyring({ NODE_ENV: 'development' }, { sql, schema });
    const fingerprint = (await first.keyring.fingerprintKey()).of('Befund');
    const [row] = (await pool.query<{ kek_id: string }>(`SELECT kek_id FROM "${schema}".fingerprint_key`)).rows;
    expect(row!.kek_id).toBe(first.keyring.keks.current.id);
    expect(row!.kek_id).toMatch(/^development-/);
    const restarted = await openDataKeyring({ NODE_ENV: 'development' }, { sql, schema });
    expect((await restarted.keyring.fingerprintKey()).of('Befund')).toBe(fingerprint);
    const configured = await openDataKeyring({ NODE_ENV: 'development', DATA_KEK: config.DATA_KEK, DATA_KEK_ID: 'kek-a' }, { sql, schema });
    expect((await configured.keyring.fingerprintKey()).of('Befund')).toBe(fingerprint);
  });

  it('re-encrypts a sealed column with a bigint key, counting the rows per data key, and leaves a row without a value alone', async () => {
    const first = (await openDataKeyring(config, { sql, schema })).keyring;
    const context = (id: string) => `clinic_note:sealed_note:${id}`;
    const column = new SqlSealedColumn({ sql, schema, table: 'clinic_note', key: { column: 'id', type: 'bigint' }, sealed: 'sealed_note', context });
    await pool.query(`TRUNCATE "${schema}".clinic_note`);
    await pool.query(`INSERT INTO "${schema}".clinic_note (id, sealed_note) VALUES (2, $1), (10, $2), (11, NULL)`, [
      first.seal('Röntgenbefund folgt', context('2')),
      first.seal('Zimmer frei', context('10')),
    ]);
    const keyring = (await openDataKeyring(config, { sql, schema })).keyring;
    const newKey = await keyring.createDataKey();

    expect(await column.countByDataKey()).toEqual([{ dataKeyId: first.currentKeyId, rows: 2 }]);
    const lines: string[] = [];
    expect(await reencryptColumn(column, keyring, { batchSize: 1, progress: (line) => lines.push(line) })).toEqual({ reencrypted: 2, skipped: 0 });
    expect(lines[0]).toBe(`clinic_note.sealed_note: 2 rows to seal under data key ${newKey}`);

    const { rows } = await pool.query<{ id: string; sealed_note: Buffer | null }>(
      `SELECT n.id::text AS id, sealed_note FROM "${schema}".clinic_note n ORDER BY n.id`,
    );
    expect(rows.map((row) => [row.id, row.sealed_note && dataKeyIdOf(row.sealed_note)])).toEqual([
      ['2', newKey],
      ['10', newKey],
      ['11', null],
    ]);
    expect(await keyring.openText(rows[0]!.sealed_note!, context('2'))).toBe('Röntgenbefund folgt');
    expect(await keyring.openText(rows[1]!.sealed_note!, context('10'))).toBe('Zimmer frei');
    expect(await column.countByDataKey()).toEqual([{ dataKeyId: newKey, rows: 2 }]);
  });
});
