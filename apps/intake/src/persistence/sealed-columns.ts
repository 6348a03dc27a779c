import { SqlSealedColumn, uuidBytes, type CountedColumn, type ResealedRow, type SealedColumn, type SqlClient, type StaleRow } from '@bedrequest/crypto';
import { bundleSummaryOf } from '../clinic-tasks/bundle-summary';
import { sealedFor, type SealedFields } from './sealed-fields';

/** Intake's sealed columns, with the clear columns they replace, for `intake keys` and `intake reencrypt`. */
export function sealedColumnsOf(sql: SqlClient, schema: string, fields: SealedFields): (SealedColumn & CountedColumn)[] {
  const jsonb = (column: string) => ({ column, type: 'jsonb' as const });
  return [
    new RequestVersionColumn(sql, schema, 'sealed_bundle', fields),
    new RequestVersionColumn(sql, schema, 'sealed_summary', fields),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'request_document',
      key: { column: 'id', type: 'uuid' },
      sealed: 'sealed_bundle',
      clear: jsonb('bundle'),
      context: sealedFor.document,
    }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'clinic_task',
      key: { column: 'id', type: 'uuid' },
      sealed: 'sealed_notes',
      clear: jsonb('notes'),
      context: sealedFor.notes,
    }),
    new SqlSealedColumn({
      sql,
      schema,
      table: 'inbox_message',
      key: { column: 'message_id', type: 'uuid' },
      sealed: 'sealed_verdict',
      clear: jsonb('verdict'),
      context: sealedFor.verdict,
    }),
  ];
}

/**
 * A sealed column of `request_version`, whose primary key has two columns (request_id, version),
 * which @bedrequest/crypto's SqlSealedColumn (one key column) does not walk. A row's id here is
 * `<request_id>/<version>`. Like SqlSealedColumn, it finds stale rows by the data key id in bytes
 * 2-17 of a sealed value, and writes a row only where it still holds what was read.
 *
 * Sealing a bundle stored in clear also seals its list summary (bundle-summary.ts), which rows
 * written before migration 0008 lack.
 */
export class RequestVersionColumn implements SealedColumn, CountedColumn {
  readonly name: string;
  private readonly table: string;

  constructor(
    private readonly sql: SqlClient,
    schema: string,
    private readonly column: 'sealed_bundle' | 'sealed_summary',
    private readonly fields: SealedFields,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`unsafe schema name ${schema}`);
    this.name = `request_version.${column}`;
    this.table = `"${schema}"."request_version"`;
  }

  private get stale(): string {
    const underOtherKey = `(${this.column} IS NOT NULL AND substring(${this.column} FROM 2 FOR 16) <> $1)`;
    return this.column === 'sealed_bundle' ? `(${underOtherKey} OR bundle IS NOT NULL)` : underOtherKey;
  }

  private get clear(): string {
    return this.column === 'sealed_bundle' ? `convert_to(bundle::text, 'UTF8')` : 'NULL::bytea';
  }

  async countStale(currentKeyId: string): Promise<number> {
    const [row] = await this.sql.query<{ rows: number }>(`SELECT count(*)::int AS rows FROM ${this.table} WHERE ${this.stale}`, [uuidBytes(currentKeyId)]);
    return row?.rows ?? 0;
  }

  async staleRows(currentKeyId: string, after: string | undefined, limit: number): Promise<StaleRow[]> {
    const [afterRequest, afterVersion] = after ? after.split('/') : [null, null];
    const rows = await this.sql.query<{ request_id: string; version: number; sealed: Uint8Array | null; clear: Uint8Array | null }>(
      `SELECT request_id::text AS request_id, version, ${this.column} AS sealed, ${this.clear} AS clear
         FROM ${this.table}
        WHERE ${this.stale} AND ($2::uuid IS NULL OR (request_id, version) > ($2::uuid, $3::int))
        ORDER BY request_id, version
        LIMIT $4`,
      [uuidBytes(currentKeyId), afterRequest, afterVersion === null ? null : Number(afterVersion), limit],
    );
    return rows.map((row) => ({
      id: `${row.request_id}/${row.version}`,
      sealed: row.sealed,
      clear: row.clear,
      context: (this.column === 'sealed_bundle' ? sealedFor.bundle : sealedFor.summary)(row.request_id, row.version),
    }));
  }

  async write(rows: readonly ResealedRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const keys = rows.map((row) => row.id.split('/') as [string, string]);
    // A bundle sealed from clear gets the summary it never had.
    const summaries = rows.map((row) => {
      if (this.column !== 'sealed_bundle' || row.was.clear === null) return null;
      const [requestId, version] = row.id.split('/') as [string, string];
      const bundle: unknown = JSON.parse(Buffer.from(row.was.clear).toString('utf8'));
      return this.fields.seal(sealedFor.summary(requestId, Number(version)), bundleSummaryOf(bundle));
    });
    const written = await this.sql.query(
      `UPDATE ${this.table} AS t
          SET ${this.column} = x.sealed${this.column === 'sealed_bundle' ? ', bundle = NULL, sealed_summary = coalesce(x.summary, t.sealed_summary)' : ''}
         FROM unnest($1::uuid[], $2::int[], $3::bytea[], $4::bytea[], $5::bytea[], $6::bytea[]) AS x(request_id, version, sealed, was_sealed, was_clear, summary)
        WHERE t.request_id = x.request_id AND t.version = x.version
          AND t.${this.column} IS NOT DISTINCT FROM x.was_sealed
          AND ${this.clear.replace('bundle', 't.bundle')} IS NOT DISTINCT FROM x.was_clear
        RETURNING 1`,
      [
        keys.map(([requestId]) => requestId),
        keys.map(([, version]) => Number(version)),
        rows.map((row) => row.sealed),
        rows.map((row) => (row.was.sealed === null ? null : Buffer.from(row.was.sealed))),
        rows.map((row) => (row.was.clear === null ? null : Buffer.from(row.was.clear))),
        summaries,
      ],
    );
    return written.length;
  }

  /** How many rows each data key sealed (by id), and how many are still in clear (`null`). */
  async countByDataKey(): Promise<{ dataKeyId: string | null; rows: number }[]> {
    const rows = await this.sql.query<{ key: string | null; rows: number }>(
      `SELECT encode(substring(${this.column} FROM 2 FOR 16), 'hex') AS key, count(*)::int AS rows FROM ${this.table} WHERE ${this.column} IS NOT NULL GROUP BY 1
       ${this.column === 'sealed_bundle' ? `UNION ALL SELECT NULL, count(*)::int FROM ${this.table} WHERE bundle IS NOT NULL HAVING count(*) > 0` : ''}`,
      [],
    );
    return rows.map((row) => ({
      dataKeyId: row.key && `${row.key.slice(0, 8)}-${row.key.slice(8, 12)}-${row.key.slice(12, 16)}-${row.key.slice(16, 20)}-${row.key.slice(20)}`,
      rows: row.rows,
    }));
  }
}
