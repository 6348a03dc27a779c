// What the vacuum-lag figure's parts share: the tables' states, a statement's cost and the tables' sizes.
import { Client as PgClient, type Client } from 'pg';
import { summarize } from './load';

/** `lagging`: VACUUM has not reached the tables since the history; `vacuumed`: after VACUUM ANALYZE. */
export type TableState = 'lagging' | 'vacuumed';

/** What a day (or a heavier stretch) of traffic leaves behind, in rows passed through each table. */
export interface History {
  name: string;
  /** Outbox messages written and relayed (intake writes several per request). */
  outboxMessages: number;
  /** Webhook deliveries stored, claimed and recorded. */
  deliveries: number;
}

/** EXPLAIN (ANALYZE, BUFFERS) of one statement, reduced to what the figure compares. */
export interface StatementCost {
  executionMs: number;
  /** Shared buffers hit and read: the pages the statement touched. */
  buffers: number;
}

export async function explain(client: Client, sql: string, values: unknown[]): Promise<StatementCost> {
  const { rows } = await client.query<{ 'QUERY PLAN': [{ 'Execution Time': number; Plan: PlanNode }] }>(
    `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`,
    values,
  );
  const [{ 'Execution Time': executionMs, Plan: plan }] = rows[0]!['QUERY PLAN'];
  return { executionMs: Math.round(executionMs * 1000) / 1000, buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0) };
}

interface PlanNode {
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
}

export async function connected(databaseUrl: string): Promise<Client> {
  const client = new PgClient({ connectionString: databaseUrl });
  await client.connect();
  return client;
}

/** Table sizes and dead rows as PostgreSQL counts them (pg_stat_user_tables). */
export async function tableStats(client: Client, schema: string, tables: readonly string[]) {
  const { rows } = await client.query<{ table: string; live: string; dead: string; bytes: string; index_bytes: string }>(
    `SELECT relname AS table, n_live_tup AS live, n_dead_tup AS dead, pg_relation_size(relid) AS bytes, pg_indexes_size(relid) AS index_bytes
       FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = ANY($2) ORDER BY relname`,
    [schema, tables],
  );
  return Object.fromEntries(
    rows.map((row) => [row.table, { liveRows: Number(row.live), deadRows: Number(row.dead), heapMiB: mib(row.bytes), indexMiB: mib(row.index_bytes) }]),
  );
}

const mib = (bytes: string) => Math.round((Number(bytes) / 1024 / 1024) * 10) / 10;

/** Each measured value of the runs summarized, per table state, and vacuumed ÷ lagging of the medians. */
export function summarizeStates<Run extends Record<string, number | StatementCost>>(measured: Record<TableState, Run[]>) {
  const summary = (runs: Run[]) =>
    Object.fromEntries(
      Object.keys(runs[0] ?? {}).map((key) => {
        const values = runs.map((run) => run[key]!);
        if (typeof values[0] === 'number') return [key, summarize(values as number[])];
        const costs = values as StatementCost[];
        return [key, { executionMs: summarize(costs.map((cost) => cost.executionMs)), buffers: summarize(costs.map((cost) => cost.buffers)) }];
      }),
    );
  return { lagging: summary(measured.lagging), vacuumed: summary(measured.vacuumed) };
}
