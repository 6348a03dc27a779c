import type { SqlClient } from './key-store';
import type { ResealedRow, SealedColumn, StaleRow } from './rotation';
import { uuidBytes } from './sealed-value';

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

export interface SqlSealedColumnOptions {
  sql: SqlClient;
  schema: string;
  table: string;
  /** The table's primary key (one column), in the order the re-encryption walks the rows. */
  key: { column: string; type: 'uuid' | 'text' | 'bigint' };
  /** The `bytea` column of the sealed values (NULL where a row holds none). */
  sealed: string;
  /** What a row's value is sealed for, from its primary key: `table:column:<key>`. */
  context(id: string): string;
}

/**
 * A sealed column of a service's PostgreSQL schema, as the re-encryption and the key listing see
 * it. A value's data key is bytes 2 to 17 of the sealed value (libs/crypto's format), so the rows
 * to re-encrypt are found without opening any. Writes set the new value only where the row still
 * holds the one read, so a running service may change rows meanwhile.
 */
export class SqlSealedColumn implements SealedColumn {
  readonly name: string;
  private readonly table: string;
  private readonly stale: string;

  constructor(private readonly options: SqlSealedColumnOptions) {
    const { schema, table, key, sealed } = options;
    for (const identifier of [schema, table, key.column, sealed]) {
      if (!IDENTIFIER.test(identifier)) throw new Error(`unusable SQL identifier "${identifier}"`);
    }
    this.name = `${table}.${sealed}`;
    this.table = `"${schema}"."${table}"`;
    // $1: the current data key's id (16 bytes).
    this.stale = `(${sealed} IS NOT NULL AND substring(${sealed} FROM 2 FOR 16) <> $1)`;
  }

  async countStale(currentKeyId: string): Promise<number> {
    const [row] = await this.options.sql.query<{ rows: number }>(`SELECT count(*)::int AS rows FROM ${this.table} WHERE ${this.stale}`, [
      uuidBytes(currentKeyId),
    ]);
    return row?.rows ?? 0;
  }

  async staleRows(currentKeyId: string, after: string | undefined, limit: number): Promise<StaleRow[]> {
    const { key, sealed } = this.options;
    const rows = await this.options.sql.query<{ id: string; sealed: Uint8Array }>(
      // Ordered by the key itself, not by its text (an output column named like it would win).
      `SELECT t.${key.column}::text AS id, t.${sealed} AS sealed
         FROM ${this.table} AS t
        WHERE ${this.stale} AND ($2::text IS NULL OR t.${key.column} > $2::text::${key.type})
        ORDER BY t.${key.column}
        LIMIT $3`,
      [uuidBytes(currentKeyId), after ?? null, limit],
    );
    return rows.map((row) => ({ ...row, context: this.options.context(row.id) }));
  }

  async write(rows: readonly ResealedRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const { key, sealed } = this.options;
    const written = await this.options.sql.query(
      `UPDATE ${this.table} AS t
          SET ${sealed} = x.sealed
         FROM unnest($1::text[]::${key.type}[], $2::bytea[], $3::bytea[]) AS x(id, sealed, was_sealed)
        WHERE t.${key.column} = x.id AND t.${sealed} = x.was_sealed
        RETURNING 1`,
      [rows.map((row) => row.id), rows.map((row) => row.sealed), rows.map((row) => Buffer.from(row.was.sealed))],
    );
    return written.length;
  }

  /** How many rows each data key sealed (by id). */
  async countByDataKey(): Promise<{ dataKeyId: string; rows: number }[]> {
    const { sealed } = this.options;
    const rows = await this.options.sql.query<{ key: string; rows: number }>(
      `SELECT encode(substring(${sealed} FROM 2 FOR 16), 'hex') AS key, count(*)::int AS rows FROM ${this.table} WHERE ${sealed} IS NOT NULL GROUP BY 1`,
      [],
    );
    return rows.map((row) => ({ dataKeyId: uuidOfHex(row.key), rows: row.rows }));
  }
}

function uuidOfHex(hex: string): string {
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
