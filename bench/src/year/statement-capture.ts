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
  Plans?: PlanNode[];
}

export interface Scan {
  node: string;
  schema?: string;
  relation?: string;
  index?: string;
}

/** Every scan of a table or index in the plan, depth first. */
export function planScans(plan: PlanNode): Scan[] {
  const own =
    plan['Relation Name'] !== undefined || plan['Index Name'] !== undefined
      ? [
          {
            node: plan['Node Type'],
            ...(plan.Schema ? { schema: plan.Schema } : {}),
            ...(plan['Relation Name'] ? { relation: plan['Relation Name'] } : {}),
            ...(plan['Index Name'] ? { index: plan['Index Name'] } : {}),
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

/** PostgreSQL's plan of `statement` (EXPLAIN, not run). */
export async function planOf(client: Client, statement: Pick<CapturedStatement, 'query' | 'params'>): Promise<PlanNode> {
  const { rows } = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${statement.query}`, statement.params);
  return rows[0]!['QUERY PLAN'][0]!.Plan;
}
