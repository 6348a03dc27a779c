// Rows, sizes and dead tuples of every table of the services' schemas: what the seed printed and
// what the report carries.
import type { Client } from 'pg';

export interface TableSize {
  schema: string;
  table: string;
  /** count(*): exact. */
  rows: number;
  /** pg_total_relation_size: heap, TOAST and indexes. */
  totalBytes: number;
  /** pg_relation_size: the heap alone. */
  heapBytes: number;
  indexBytes: number;
  /** The statistics collector's live and dead tuples (n_live_tup, n_dead_tup). */
  liveTuples: number;
  deadTuples: number;
}

export async function tableSizes(client: Client, schemas: readonly string[]): Promise<TableSize[]> {
  const { rows } = await client.query<Omit<TableSize, 'rows'>>(
    `SELECT n.nspname AS schema, c.relname AS table, pg_total_relation_size(c.oid)::float8 AS "totalBytes", pg_relation_size(c.oid)::float8 AS "heapBytes",
            pg_indexes_size(c.oid)::float8 AS "indexBytes", coalesce(s.n_live_tup, 0)::float8 AS "liveTuples", coalesce(s.n_dead_tup, 0)::float8 AS "deadTuples"
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE n.nspname = ANY($1::text[]) AND c.relkind = 'r'
      ORDER BY n.nspname, c.relname`,
    [schemas],
  );
  const sizes: TableSize[] = [];
  for (const row of rows) {
    const { rows: counted } = await client.query<{ rows: number }>(`SELECT count(*)::float8 AS rows FROM "${row.schema}"."${row.table}"`);
    sizes.push({ ...row, rows: counted[0]!.rows });
  }
  return sizes;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/** One line a table, for the console. */
export function formatTableSizes(sizes: readonly TableSize[]): string {
  const header = 'schema.table'.padEnd(44) + 'rows'.padStart(12) + 'total MiB'.padStart(11) + 'heap MiB'.padStart(10) + 'index MiB'.padStart(11);
  const lines = sizes.map(
    (size) =>
      `${size.schema}.${size.table}`.padEnd(44) +
      String(size.rows).padStart(12) +
      mib(size.totalBytes).padStart(11) +
      mib(size.heapBytes).padStart(10) +
      mib(size.indexBytes).padStart(11) +
      `  live ${size.liveTuples}, dead ${size.deadTuples}`,
  );
  const total = sizes.reduce((sum, size) => sum + size.totalBytes, 0);
  return [header, ...lines, `${'all tables'.padEnd(56)}${mib(total).padStart(11)}`].join('\n');
}
