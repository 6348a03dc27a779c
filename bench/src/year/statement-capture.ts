// The statements the services' own code sends to PostgreSQL, captured as sent (at pg's
// Client.query, which Prisma's pg adapter and the code using pg directly both go through), and
// PostgreSQL's plans of them: what the plan test (hot-plans.int.spec.ts) judges. Pure where it can
// be (planScans, sequentialScans, explainable): unit-tested in statement-capture.spec.ts.
import { Client } from 'pg';

export interface CapturedStatement {
  /** The hot path that sent it. */
  path: string;
  query: string;
  params: unknown[];
}

/** A plan node of EXPLAIN (FORMAT JSON), as far as the test reads it. */
export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  Schema?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Recheck Cond'?: string;
  Plans?: PlanNode[];
}

export interface Scan {
  node: string;
  schema?: string;
  relation?: string;
  index?: string;
  /** Whether an index condition bounds what it reads (an Index Cond, or a bitmap's Recheck Cond). */
  bounded: boolean;
}

/** Whether an index condition bounds what the node reads: its own, or for a bitmap heap scan that of the bitmap index scans under it. */
function boundedRead(plan: PlanNode): boolean {
  if (plan['Index Cond'] !== undefined || plan['Recheck Cond'] !== undefined) {
    return true;
  }
  return (
    plan['Node Type'] === 'Bitmap Heap Scan' &&
    (plan.Plans ?? []).some(function bitmapBounded(child: PlanNode): boolean {
      return child['Index Cond'] !== undefined || (child.Plans ?? []).some(bitmapBounded);
    })
  );
}

/** Every scan of a table or index in the plan, depth first (the tables an INSERT, UPDATE or DELETE writes are no scans). */
export function planScans(plan: PlanNode): Scan[] {
  const scans = plan['Node Type'] !== 'ModifyTable' && (plan['Relation Name'] !== undefined || plan['Index Name'] !== undefined);
  const own = scans
    ? [
        {
          node: plan['Node Type'],
          ...(plan.Schema ? { schema: plan.Schema } : {}),
          ...(plan['Relation Name'] ? { relation: plan['Relation Name'] } : {}),
          ...(plan['Index Name'] ? { index: plan['Index Name'] } : {}),
          bounded: boundedRead(plan),
        },
      ]
    : [];
  return [...own, ...(plan.Plans ?? []).flatMap(planScans)];
}

/** The scans that read a whole growing table: a Seq Scan of a table `growing` names (in one of `schemas`). */
export function sequentialScans(scans: readonly Scan[], growing: ReadonlySet<string>, schemas: ReadonlySet<string>): Scan[] {
  return scans.filter(
    (scan) => scan.node === 'Seq Scan' && scan.relation !== undefined && growing.has(scan.relation) && (!scan.schema || schemas.has(scan.schema)),
  );
}

/**
 * Of the relations `whole` read sequentially in the plan as chosen, those PostgreSQL cannot read
 * any other way than whole: in `forced`, the plan of the same statement asked with sequential
 * scans, hash and merge joins discouraged (so that a join probes an index row by row, as it does
 * from a few rows into a large table), each is still read by a Seq Scan, or by an index scan with no
 * index condition (the whole index). A relation it then reads through an index condition has an
 * index that bounds the read: the planner chose the scan for a table as small as the seed's.
 */
export function unboundedReads(whole: readonly Scan[], forced: readonly Scan[]): string[] {
  const relations = [...new Set(whole.map((scan) => scan.relation!))];
  return relations.filter((relation) => {
    const reads = forced.filter((scan) => scan.relation === relation);
    return reads.length === 0 || reads.some((scan) => scan.node === 'Seq Scan' || !scan.bounded);
  });
}

/** Statements a plan can be asked for (not BEGIN, SET, DEALLOCATE …). */
export function explainable(query: string): boolean {
  return /^\s*(SELECT|WITH|INSERT|UPDATE|DELETE)\b/i.test(query) && !/^\s*SELECT\s+1\s*$/i.test(query);
}

/** Records what every pg Client of this process sends while `work` runs (the outbox relay's own connection among them). */
export async function capturePgQueries<T>(path: string, into: CapturedStatement[], work: () => Promise<T>): Promise<T> {
  const original = Client.prototype.query;
  // The first argument is the text or a config object with one; both are what was sent.
  Client.prototype.query = function (this: Client, ...args: unknown[]) {
    const [first, second] = args;
    const text = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
    const values = Array.isArray(second) ? second : ((first as { values?: unknown[] } | undefined)?.values ?? []);
    if (text) into.push({ path, query: text, params: values });
    return (original as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof Client.prototype.query;
  try {
    return await work();
  } finally {
    Client.prototype.query = original;
  }
}

/** PostgreSQL's plan of `statement` (EXPLAIN, not run); `forced`: with sequential scans discouraged, for that statement alone (unboundedReads). */
export async function planOf(client: Client, statement: Pick<CapturedStatement, 'query' | 'params'>, options: { forced?: boolean } = {}): Promise<PlanNode> {
  const explain = async () =>
    (await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${statement.query}`, statement.params)).rows[0]!['QUERY PLAN'][0]!.Plan;
  if (!options.forced) return explain();
  await client.query('BEGIN');
  try {
    await client.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off');
    return await explain();
  } finally {
    await client.query('ROLLBACK');
  }
}
