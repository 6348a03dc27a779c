import { Client } from 'pg';
import { fhirSystems } from '@bedrequest/fhir-model';
import { createPrismaAdapter } from '@bedrequest/persistence';
import { AuditTrailRepository } from '../../apps/intake/src/audit/audit-trail.repository';
import { AuditTrail } from '../../apps/intake/src/audit/audit-trail.service';
import { PrismaClient } from '../../apps/intake/src/generated/prisma/client';
import { openSealedFields } from '../../apps/intake/src/persistence/sealed-fields';
import { prismaRunner } from '../../apps/intake/src/persistence/sql-runner';
import { TaskReadRepository } from '../../apps/intake/src/tasks/task-read.repository';
import { TaskReadService } from '../../apps/intake/src/tasks/task-read.service';
import { FHIR_BASE, REFERRER_IK } from './bundles';
import { cpuSpent, sampleCpu } from './process-cpu';
import { closedLoop, summarize } from './load';
import { usesIndexesOnly } from './report-format';

const seededIdentifier = (n: number) => `${FHIR_BASE}/ServiceRequest/seed-${n}`;

/**
 * Stores `count` requests with two Tasks each straight into intake's schema: one set-based INSERT
 * per table from generate_series, the Task's request id computed rather than looked up. The ids
 * count up (uuid-shaped), so the primary-key and (request_id, clinic_ik) indexes grow at their
 * right edge instead of splitting pages all over. Then VACUUM ANALYZE: fresh statistics for the
 * planner, and autovacuum does not wake up for two million new rows in the middle of the load.
 */
export async function seedRequests(options: {
  databaseUrl: string;
  schema: string;
  partyId: string;
  count: number;
  clinicIks: [string, string];
}): Promise<{ requests: number; tasks: number; seconds: number }> {
  const started = performance.now();
  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    const s = `"${options.schema}"`;
    // `00000000-0000-4000-800<n>-<g in hex>`: a range the random ids of the other figures do not hit.
    const id = (variant: string) => `('00000000-0000-4000-' || ${variant} || '-' || lpad(to_hex(g), 12, '0'))::uuid`;
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO ${s}.admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
       SELECT ${id("'8000'")}, $1 || g, $2, $3, 'active', 'proposal', 1, 'seed', now() FROM generate_series(1, $4::int) g`,
      [`${FHIR_BASE}/ServiceRequest/seed-`, options.partyId, REFERRER_IK, options.count],
    );
    await client.query(
      `INSERT INTO ${s}.clinic_task (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified)
       SELECT ${id("'800' || c.n")}, ${id("'8000'")}, $4, c.ik, 'requested', 1, now(), now()
         FROM generate_series(1, $1::int) g CROSS JOIN (VALUES (1, $2), (2, $3)) AS c(n, ik)`,
      [options.count, options.clinicIks[0], options.clinicIks[1], options.partyId],
    );
    await client.query('COMMIT');
    await client.query(`VACUUM ANALYZE ${s}.admission_request`);
    await client.query(`VACUUM ANALYZE ${s}.clinic_task`);
  } finally {
    await client.end();
  }
  return { requests: options.count, tasks: 2 * options.count, seconds: (performance.now() - started) / 1000 };
}

/**
 * The SQL intake runs for `GET /api/v2/fhir/Task?based-on=...` (captured from Prisma's query log:
 * one statement, the page and the total together) and PostgreSQL's plan of each statement, to show
 * the search uses indexes only.
 */
async function searchPlans(options: { databaseUrl: string; schema: string; partyId: string; profileBase: string }): Promise<string[]> {
  const prisma = new PrismaClient({
    adapter: createPrismaAdapter({ databaseUrl: options.databaseUrl, schema: options.schema, poolSize: 1 }),
    log: [{ emit: 'event', level: 'query' }],
  });
  const statements: { query: string; params: unknown[] }[] = [];
  prisma.$on('query', (event) => statements.push({ query: event.query, params: JSON.parse(event.params) as unknown[] }));
  // As intake runs it: every search records who read which request (the audit trail).
  const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), options.schema));
  const { fields } = await openSealedFields({ NODE_ENV: 'development', INTAKE_DB_SCHEMA: options.schema }, prisma);
  // The key tables' statements are not the search's.
  statements.length = 0;
  const tasks = new TaskReadService(new TaskReadRepository(prisma, options.schema, fields), fhirSystems(options.profileBase), audit);
  await tasks.search(
    { 'based-on': seededIdentifier(4242) },
    { viewer: { role: 'referrer', partyId: options.partyId }, user: options.partyId },
    { base: '', path: '/api/v2/fhir/Task' },
  );
  await prisma.$disconnect();
  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    const plans: string[] = [];
    // The search's own statements; the audit trail's write is not a search plan (and EXPLAIN ANALYZE would run it again).
    for (const statement of statements.filter((candidate) => !/audit/i.test(candidate.query))) {
      const { rows } = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.query}`, statement.params);
      plans.push(`${statement.query}\n${rows.map((row) => row['QUERY PLAN']).join('\n')}`);
    }
    return plans;
  } finally {
    await client.end();
  }
}

/** Figure 4: Task polling by `based-on` with `count` stored requests. */
export async function pollingFigure(options: {
  gatewayUrl: string;
  token: string;
  databaseUrl: string;
  schema: string;
  partyId: string;
  profileBase: string;
  count: number;
  runs: number;
  seconds: number;
  connections: number;
  /** The stack's service processes by name: the CPU each spends per poll (every search also records its read in the audit trail). */
  pids: ReadonlyMap<string, number>;
}) {
  const plans = await searchPlans(options);
  const rates: number[] = [];
  const p99: number[] = [];
  let non2xx = 0;
  let answered = 0;
  const cpuBefore = sampleCpu(options.pids);
  for (let run = 0; run < options.runs; run++) {
    const result = await closedLoop({
      url: options.gatewayUrl,
      headers: { authorization: `Bearer ${options.token}` },
      path: () => `/api/v2/fhir/Task?based-on=${encodeURIComponent(seededIdentifier(1 + Math.floor(Math.random() * options.count)))}`,
      connections: options.connections,
      durationSeconds: options.seconds,
    });
    rates.push(result.okPerSecond);
    p99.push(result.latencyP99Ms);
    non2xx += result.non2xx;
    answered += result.ok + result.non2xx;
  }
  const spent = cpuSpent(cpuBefore, sampleCpu(options.pids));
  const cpuMsPerPoll = Object.fromEntries(Object.entries(spent).map(([name, ms]) => [name, ms / Math.max(1, answered)]));
  const usesIndex = usesIndexesOnly(plans);
  return {
    storedRequests: options.count,
    requestsPerSecond: summarize(rates),
    latencyP99Ms: summarize(p99),
    non2xx,
    cpuMsPerPoll,
    statementsPerSearch: plans.length,
    usesIndex,
    plans,
  };
}
