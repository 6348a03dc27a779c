import { SqlSealedColumn, uuidBytes, type CountedColumn, type ResealedRow, type SealedColumn, type SqlClient, type StaleRow } from '@bedrequest/crypto';
import { sealedFor } from './sealed-fields';

/** Intake's sealed columns, for `intake keys` and `intake reencrypt`. */
export function sealedColumnsOf(sql: SqlClient, schema: string): (SealedColumn & CountedColumn)[] {
  return [
    new RequestVersionColumn(sql, schema, 'sealed_bundle'),
    new RequestVersionColumn(sql, schema, 'sealed_summary'),
    new SqlSealedColumn({ sql, schema, table: 'request_document', key: { column: 'id', type: 'uuid' }, sealed: 'sealed_bundle', context: sealedFor.document }),
    new SqlSealedColumn({ sql, schema, table: 'clinic_task', key: { column: 'id', type: 'uuid' }, sealed: 'sealed_notes', context: sealedFor.notes }),
    new SqlSealedColumn({ sql, schema, table: 'clinic_task', key: { column: 'id', type: 'uuid' }, sealed: 'sealed_history', context: sealedFor.history }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'inbox_message',
      key: { column: 'message_id', type: 'uuid' },
      sealed: 'sealed_verdict',
      context: sealedFor.verdict,
    }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'clinic_internal_note',
      key: { column: 'id', type: 'uuid' },
      sealed: 'sealed_note',
      context: sealedFor.internalNote,
    }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'referrer_case_number',
      key: { column: 'id', type: 'uuid' },
      sealed: 'sealed_case_number',
      context: sealedFor.caseNumber,
    }),
    new SqlSealedColumn({ sql, schema, table: 'referrer_draft', key: { column: 'id', type: 'uuid' }, sealed: 'sealed_label', context: sealedFor.draftLabel }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'referrer_draft',
      key: { column: 'id', type: 'uuid' },
      sealed: 'sealed_content',
      context: sealedFor.draftContent,
    }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'record_signing_key',
      key: { column: 'id', type: 'uuid' },
      sealed: 'sealed_private_key',
      context: sealedFor.recordSigningKey,
    }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'referrer_ready_for_transfer',
      key: { column: 'id', type: 'uuid' },
      sealed: 'sealed_ready',
      context: sealedFor.readyForTransfer,
    }),
  ];
}

/**
 * A sealed column of `request_version`, whose primary key has two columns (request_id, version),
 * which @bedrequest/crypto's SqlSealedColumn (one key column) does not walk. A row's id here is
 * `<request_id>/<version>`. Like SqlSealedColumn, it finds stale rows by the data key id in bytes
 * 2-17 of a sealed value, and writes a row only where it still holds what was read.
 */
export class RequestVersionColumn implements SealedColumn, CountedColumn {
  readonly name: string;
  private readonly table: string;

  constructor(
    private readonly sql: SqlClient,
    schema: string,
    private readonly column: 'sealed_bundle' | 'sealed_summary',
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`unsafe schema name ${schema}`);
    this.name = `request_version.${column}`;
    this.table = `"${schema}"."request_version"`;
  }

  private get stale(): string {
    return `substring(${this.column} FROM 2 FOR 16) <> $1`;
  }

  async countStale(currentKeyId: string): Promise<number> {
    const [row] = await this.sql.query<{ rows: number }>(`SELECT count(*)::int AS rows FROM ${this.table} WHERE ${this.stale}`, [uuidBytes(currentKeyId)]);
    return row?.rows ?? 0;
  }

  async staleRows(currentKeyId: string, after: string | undefined, limit: number): Promise<StaleRow[]> {
    const [afterRequest, afterVersion] = after ? after.split('/') : [null, null];
    const rows = await this.sql.query<{ request_id: string; version: number; sealed: Uint8Array }>(
      `SELECT request_id::text AS request_id, version, ${this.column} AS sealed
         FROM ${this.table}
        WHERE ${this.stale} AND ($2::uuid IS NULL OR (request_id, version) > ($2::uuid, $3::int))
        ORDER BY request_id, version
        LIMIT $4`,
      [uuidBytes(currentKeyId), afterRequest, afterVersion === null ? null : Number(afterVersion), limit],
    );
    return rows.map((row) => ({
      id: `${row.request_id}/${row.version}`,
      sealed: row.sealed,
      context: (this.column === 'sealed_bundle' ? sealedFor.bundle : sealedFor.summary)(row.request_id, row.version),
    }));
  }

  async write(rows: readonly ResealedRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const keys = rows.map((row) => row.id.split('/') as [string, string]);
    const written = await this.sql.query(
      `UPDATE ${this.table} AS t
          SET ${this.column} = x.sealed
         FROM unnest($1::uuid[], $2::int[], $3::bytea[], $4::bytea[]) AS x(request_id, version, sealed, was_sealed)
        WHERE t.request_id = x.request_id AND t.version = x.version AND t.${this.column} = x.was_sealed
        RETURNING 1`,
      [
        keys.map(([requestId]) => requestId),
        keys.map(([, version]) => Number(version)),
        rows.map((row) => row.sealed),
        rows.map((row) => Buffer.from(row.was.sealed)),
      ],
    );
    return written.length;
  }

  /** How many rows each data key sealed (by id). */
  async countByDataKey(): Promise<{ dataKeyId: string; rows: number }[]> {
    const rows = await this.sql.query<{ key: string; rows: number }>(
      `SELECT encode(substring(${this.column} FROM 2 FOR 16), 'hex') AS key, count(*)::int AS rows FROM ${this.table} GROUP BY 1`,
      [],
    );
    return rows.map((row) => ({
      dataKeyId: `${row.key.slice(0, 8)}-${row.key.slice(8, 12)}-${row.key.slice(12, 16)}-${row.key.slice(16, 20)}-${row.key.slice(20)}`,
      rows: row.rows,
    }));
  }
}
