/**
 * The table of a service's fingerprint key (fingerprint.ts): one row at most, ever (`single`, unique
 * and true), so that replicas making it at the same first start all end up with the same key.
 */
export const FINGERPRINT_KEY_TABLE_SQL = `CREATE TABLE fingerprint_key (
  id          uuid PRIMARY KEY,
  wrapped_key bytea NOT NULL,
  kek_id      text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now(),
  single      boolean NOT NULL DEFAULT true UNIQUE CHECK (single)
);`;

/**
 * The key tables every service that seals data has in its own schema (copy this into the
 * service's migration and its schema.prisma):
 *
 * - `data_key`: the service's data keys, each wrapped by a key-encryption key (KEK) from the
 *   environment and labelled with that KEK's id. A data key never leaves the process unwrapped.
 * - `development_kek`: outside production only, the KEK generated on the first start when
 *   DATA_KEK is not set (as the auth service keeps its development signing key). It lies beside
 *   the data it protects, so it protects nothing against a copy of the database: it only lets
 *   development and tests run the same code as production, which refuses to start without DATA_KEK.
 * - `fingerprint_key` (FINGERPRINT_KEY_TABLE_SQL), for a service that recognises values by keyed
 *   hashes (fingerprint.ts): its one fingerprint key, wrapped like a data key.
 */
export const KEY_TABLES_SQL = `CREATE TABLE data_key (
  id          uuid PRIMARY KEY,
  wrapped_key bytea NOT NULL,
  kek_id      text NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);

CREATE TABLE development_kek (
  id         text PRIMARY KEY,
  key        bytea NOT NULL,
  created_at timestamptz(3) NOT NULL DEFAULT now()
);

${FINGERPRINT_KEY_TABLE_SQL}`;

/** One row of `data_key`. */
export interface WrappedDataKey {
  id: string;
  wrappedKey: Uint8Array;
  kekId: string;
  createdAt: Date;
}

/** Where a service keeps its wrapped data keys. */
export interface DataKeyStore {
  /** Every data key, oldest first. */
  all(): Promise<WrappedDataKey[]>;
  find(id: string): Promise<WrappedDataKey | undefined>;
  /** The newest data key wrapped by `kekId`: the one new values are sealed under. */
  newestWrappedBy(kekId: string): Promise<WrappedDataKey | undefined>;
  add(key: Omit<WrappedDataKey, 'createdAt'>): Promise<void>;
  /** Stores the key wrapped anew, only if it is still wrapped by `previousKekId`; whether it was. */
  rewrap(id: string, wrappedKey: Uint8Array, kekId: string, previousKekId: string): Promise<boolean>;
}

/**
 * Where a service keeps its fingerprint key: one, made once and never replaced (the hashes made
 * with it are compared with those of later submissions), only re-wrapped when the KEK changes.
 */
export interface FingerprintKeyStore {
  fingerprintKey(): Promise<WrappedDataKey | undefined>;
  /** Stores it unless the service has one already (made by a replica at the same time): that one stays. */
  addFingerprintKey(key: Omit<WrappedDataKey, 'createdAt'>): Promise<void>;
  /** Stores it wrapped anew, only if it is still wrapped by `previousKekId`; whether it was. */
  rewrapFingerprintKey(id: string, wrappedKey: Uint8Array, kekId: string, previousKekId: string): Promise<boolean>;
}

/** Where the development KEK is kept, so that restarts and replicas share it. */
export interface DevelopmentKekStore {
  /** Every stored development KEK, oldest first. */
  developmentKeks(): Promise<{ id: string; key: Uint8Array }[]>;
  /** Stores one; a concurrent start storing its own first is not an error. */
  addDevelopmentKek(id: string, key: Uint8Array): Promise<void>;
}

/** What the store needs of a database client: one parameterised statement (`$1`, `$2`, ...). */
export interface SqlClient {
  query<Row>(sql: string, values: unknown[]): Promise<Row[]>;
}

interface DataKeyRow {
  id: string;
  wrapped_key: Uint8Array;
  kek_id: string;
  created_at: Date;
}

/**
 * The key tables in the schema `schema`, through the service's own database client. The
 * fingerprint key's table is read only by a service that uses one (DataKeyring.fingerprintKey).
 */
export class SqlKeyStore implements DataKeyStore, FingerprintKeyStore, DevelopmentKekStore {
  private readonly dataKeys: string;
  private readonly fingerprintKeys: string;
  private readonly developmentKekTable: string;

  constructor(
    private readonly sql: SqlClient,
    schema: string,
  ) {
    // Checked here too: the name is quoted into the statements.
    if (!/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new Error(`unusable schema name "${schema}"`);
    this.dataKeys = `"${schema}"."data_key"`;
    this.fingerprintKeys = `"${schema}"."fingerprint_key"`;
    this.developmentKekTable = `"${schema}"."development_kek"`;
  }

  async all(): Promise<WrappedDataKey[]> {
    return (await this.sql.query<DataKeyRow>(`SELECT id::text AS id, wrapped_key, kek_id, created_at FROM ${this.dataKeys} ORDER BY created_at, id`, [])).map(
      dataKeyOf,
    );
  }

  async find(id: string): Promise<WrappedDataKey | undefined> {
    const rows = await this.sql.query<DataKeyRow>(`SELECT id::text AS id, wrapped_key, kek_id, created_at FROM ${this.dataKeys} WHERE id = $1::uuid`, [id]);
    return rows[0] && dataKeyOf(rows[0]);
  }

  async newestWrappedBy(kekId: string): Promise<WrappedDataKey | undefined> {
    const rows = await this.sql.query<DataKeyRow>(
      `SELECT id::text AS id, wrapped_key, kek_id, created_at FROM ${this.dataKeys} WHERE kek_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1`,
      [kekId],
    );
    return rows[0] && dataKeyOf(rows[0]);
  }

  async add(key: Omit<WrappedDataKey, 'createdAt'>): Promise<void> {
    await this.sql.query(`INSERT INTO ${this.dataKeys} (id, wrapped_key, kek_id) VALUES ($1::uuid, $2, $3)`, [key.id, Buffer.from(key.wrappedKey), key.kekId]);
  }

  rewrap(id: string, wrappedKey: Uint8Array, kekId: string, previousKekId: string): Promise<boolean> {
    return this.rewrapIn(this.dataKeys, id, wrappedKey, kekId, previousKekId);
  }

  async fingerprintKey(): Promise<WrappedDataKey | undefined> {
    const rows = await this.sql.query<DataKeyRow>(`SELECT id::text AS id, wrapped_key, kek_id, created_at FROM ${this.fingerprintKeys}`, []);
    return rows[0] && dataKeyOf(rows[0]);
  }

  async addFingerprintKey(key: Omit<WrappedDataKey, 'createdAt'>): Promise<void> {
    // A concurrent insert waits for the first one's commit at the unique `single`, then does nothing.
    await this.sql.query(`INSERT INTO ${this.fingerprintKeys} (id, wrapped_key, kek_id) VALUES ($1::uuid, $2, $3) ON CONFLICT (single) DO NOTHING`, [
      key.id,
      Buffer.from(key.wrappedKey),
      key.kekId,
    ]);
  }

  rewrapFingerprintKey(id: string, wrappedKey: Uint8Array, kekId: string, previousKekId: string): Promise<boolean> {
    return this.rewrapIn(this.fingerprintKeys, id, wrappedKey, kekId, previousKekId);
  }

  /** Wraps a key anew, only if it is still wrapped by `previousKekId` (a concurrent re-wrap wins). */
  private async rewrapIn(table: string, id: string, wrappedKey: Uint8Array, kekId: string, previousKekId: string): Promise<boolean> {
    const rows = await this.sql.query(`UPDATE ${table} SET wrapped_key = $2, kek_id = $3 WHERE id = $1::uuid AND kek_id = $4 RETURNING id`, [
      id,
      Buffer.from(wrappedKey),
      kekId,
      previousKekId,
    ]);
    return rows.length === 1;
  }

  async developmentKeks(): Promise<{ id: string; key: Uint8Array }[]> {
    return this.sql.query<{ id: string; key: Uint8Array }>(`SELECT id, key FROM ${this.developmentKekTable} ORDER BY created_at, id`, []);
  }

  async addDevelopmentKek(id: string, key: Uint8Array): Promise<void> {
    await this.sql.query(`INSERT INTO ${this.developmentKekTable} (id, key) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [id, Buffer.from(key)]);
  }
}

function dataKeyOf(row: DataKeyRow): WrappedDataKey {
  return { id: row.id, wrappedKey: row.wrapped_key, kekId: row.kek_id, createdAt: row.created_at };
}
