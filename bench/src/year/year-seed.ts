// Seeds a year of the service into one database: the services' schemas made by their own
// migrations (libs/persistence, as each service applies them at start), then, in one session,
// the year's lives (seed-lifecycle.ts) written chunk by chunk of 30 days into every service's
// tables with the churn the year brings (seed-intake.ts, seed-routing.ts, seed-recent.ts), a
// VACUUM after each chunk standing for autovacuum keeping pace, and the values hot paths open
// sealed for real (year-sealing.ts). Set-based throughout: each step is one INSERT … SELECT (or
// UPDATE, DELETE) over generate_series and the session's temporary tables.
import { join } from 'node:path';
import { Client } from 'pg';
import { applyMigrations, readMigrations, type Migration } from '@bedrequest/persistence';
import { root } from './workspace-root';
import {
  authSql,
  DELIVERY_DAYS,
  deliveryDaySql,
  deliveryEventsSql,
  INTAKE_DAY_CHURNED,
  intakeDaySql,
  NOTIFIER_CHURNED,
  notifierErasureSql,
  referrerSettingsSql,
} from './seed-recent';
import { auditChunkSql, INTAKE_CHURNED, intakeChunkSql, intakeErasureSql, type SealedSizes, type Window } from './seed-intake';
import { lit, populationSql, requestsSql, sessionFunctionsSql, setDataKeySql, tasksSql, type BenchParty, type SeedClock } from './seed-lifecycle';
import { ROUTING_CHURNED, routingBaseSql, routingChunkSql, routingErasureSql, routingFinishSql } from './seed-routing';
import { anchorDays, auditTemplates } from './year-audit';
import { chunksOf, DEFAULT_SCHEMAS, yearProfile, type YearProfile, type YearSchemas } from './year-profile';
import { openKeyring, sealSummaries, sealTasks, seedSubscriptions, type NodeEnv } from './year-sealing';
import { formatTableSizes, tableSizes, type TableSize } from './table-sizes';

/**
 * What the seed changes makes a template of another year: every line of the seed's SQL and
 * plaintexts counts. Raise it with every change of bench/src/year that changes what is seeded.
 */
export const SEED_VERSION = 1;

export const SERVICES_WITH_SCHEMAS = ['auth', 'intake', 'routing', 'notifier'] as const;

/** Each service's migrations, as the service applies them (apps/<service>/prisma/migrations). */
export function migrationsOf(service: (typeof SERVICES_WITH_SCHEMAS)[number]): Migration[] {
  return readMigrations(join(root, 'apps', service, 'prisma', 'migrations'));
}

export interface SeedOptions {
  /** The database to seed; its services' schemas must not exist yet. */
  databaseUrl: string;
  schemas?: YearSchemas;
  scale: number;
  /** The bench referrer's share of the requests (default 0.1). */
  benchShare?: number;
  bench: BenchParty;
  /** What the services run as: their keyrings are made for it (outside production with the development KEK, kept in the schema). */
  nodeEnv: NodeEnv;
  /** The year's end (default: now). */
  now?: Date;
  /** The bench's bundle, whose size and summary the seeded versions get. */
  bundle: unknown;
  /** Days a chunk (default 30): a test seeds in fewer, longer chunks, each with its VACUUM. */
  chunkDays?: number;
  log?: (line: string) => void;
}

export interface SeedResult {
  profile: YearProfile;
  schemas: YearSchemas;
  now: string;
  seconds: number;
  /** Seconds per step, in order. */
  steps: { step: string; seconds: number }[];
  tables: TableSize[];
  /** The bench referrer's requests are `<its FHIR base>/ServiceRequest/seed-<n>` for n = 1…benchRequests. */
  benchRequests: number;
}

const DAY_MS = 86_400_000;
const timestamp = (date: Date) => `${lit(date.toISOString())}::timestamptz`;

/** The seed's clock: its now and the year's start, midnight UTC 365 days before today's, so that each chunk holds whole days of the audit trail. */
export function seedClock(now: Date, days: number): { clock: SeedClock; start: Date; today: Date } {
  const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  const start = new Date(today.getTime() - days * DAY_MS);
  return { clock: { now: timestamp(now), start: timestamp(start) }, start, today };
}

export async function seedYear(options: SeedOptions): Promise<SeedResult> {
  const log = options.log ?? (() => undefined);
  const schemas = options.schemas ?? DEFAULT_SCHEMAS;
  const profile = { ...yearProfile(options.scale, options.benchShare), ...(options.chunkDays ? { chunkDays: options.chunkDays } : {}) };
  const now = options.now ?? new Date();
  const { clock, start, today } = seedClock(now, profile.days);
  const began = performance.now();
  const steps: SeedResult['steps'] = [];
  const step = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
    const at = performance.now();
    const result = await work();
    const seconds = (performance.now() - at) / 1000;
    steps.push({ step: name, seconds });
    log(`[year] ${name}: ${seconds.toFixed(1)} s`);
    return result;
  };

  await step('migrations', async () => {
    for (const service of SERVICES_WITH_SCHEMAS) {
      await applyMigrations({ databaseUrl: options.databaseUrl, schema: schemas[service], migrations: migrationsOf(service) });
    }
  });

  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  const run = async (statements: readonly string[]) => {
    for (const statement of statements) await client.query(statement);
  };
  const vacuum = (schema: string, tables: readonly string[]) => run(tables.map((table) => `VACUUM "${schema}"."${table}"`));
  try {
    // Temporary tables of a few hundred MiB: kept in the session's memory as far as it goes.
    await run([`SET temp_buffers = '512MB'`, `SET work_mem = '128MB'`, `SET maintenance_work_mem = '256MB'`, 'SET synchronous_commit = off', 'SET jit = off']);
    const intakeKeys = await openKeyring(client, schemas.intake, options.nodeEnv, { fingerprintKey: true });
    const notifierKeys = await openKeyring(client, schemas.notifier, options.nodeEnv, { fingerprintKey: false });
    // Bed counts are one a clinic, department and day: their history scales with the year's.
    const capacityDays = Math.max(30, Math.round(profile.days * profile.scale));
    const sizes: SealedSizes = {
      bundle: 45 + Buffer.byteLength(JSON.stringify(options.bundle)),
      document: 45 + 8_000,
      verdict: 45 + 420,
    };
    await step('lives of the year', () =>
      run([
        ...sessionFunctionsSql(),
        setDataKeySql(intakeKeys.currentKeyId),
        ...populationSql(profile, options.bench),
        ...requestsSql(profile, clock, options.bench),
        ...tasksSql(profile, clock),
        'ANALYZE year_request',
        'ANALYZE year_task',
      ]),
    );
    await step('parties, clinics and settings', async () => {
      await run(authSql(schemas.auth, clock, profile.usersPerParty, options.bench.userId));
      await run(routingBaseSql(schemas.routing, clock, capacityDays));
      await run(referrerSettingsSql(schemas.intake, clock));
      await seedSubscriptions(client, schemas.notifier, notifierKeys, clock.start);
    });

    const templates = auditTemplates();
    const capacityFrom = `${clock.now}::date - ${capacityDays}`;
    for (const [index, chunk] of chunksOf(profile).entries()) {
      const last = chunk.toDay >= profile.days;
      const window: Window = {
        from: timestamp(new Date(start.getTime() + chunk.fromDay * DAY_MS)),
        to: last ? timestamp(new Date(now.getTime() + DAY_MS)) : timestamp(new Date(start.getTime() + chunk.toDay * DAY_MS)),
      };
      await step(`chunk ${index + 1} (days ${chunk.fromDay}-${chunk.toDay})`, async () => {
        await run([setDataKeySql(intakeKeys.currentKeyId), ...intakeChunkSql(schemas.intake, window, clock, sizes)]);
        await run(routingChunkSql(schemas.routing, window, capacityFrom));
        await run(auditChunkSql(schemas.intake, window, clock, templates));
        await sealTasks(client, schemas.intake, intakeKeys, window);
        await sealSummaries(client, schemas.intake, intakeKeys, window, options.bundle);
        await run([
          ...intakeErasureSql(schemas.intake, window),
          ...routingErasureSql(schemas.routing, window),
          ...notifierErasureSql(schemas.notifier, window),
        ]);
        await vacuum(schemas.intake, [...INTAKE_CHURNED, 'audit_events', 'answer_statistic', 'clinic_task_workspace', 'request_erasure']);
        await vacuum(schemas.routing, [...ROUTING_CHURNED, 'routed_task', 'inbox_message', 'request_erasure']);
        await vacuum(schemas.notifier, ['request_erasure']);
      });
    }
    await step('audit anchors', () => anchorDays(client, schemas.intake, intakeKeys.keks, start.toISOString().slice(0, 10), today.toISOString().slice(0, 10)));
    await step('bed counts of the holds', () => run(routingFinishSql(schemas.routing)));

    await step(`deliveries of the last ${DELIVERY_DAYS} days`, async () => {
      await run([setDataKeySql(notifierKeys.currentKeyId), ...deliveryEventsSql(schemas.notifier, clock)]);
      for (let day = DELIVERY_DAYS; day >= 1; day--) {
        const from = new Date(now.getTime() - day * DAY_MS);
        await run(deliveryDaySql(schemas.notifier, { from: timestamp(from), to: timestamp(new Date(from.getTime() + DAY_MS)) }));
        // The delivery table's own autovacuum threshold (5,000 dead rows, its migration) is passed every day.
        await vacuum(schemas.notifier, NOTIFIER_CHURNED);
      }
    });
    await step('outboxes, mail and drafts of the last 60 days', async () => {
      await run([setDataKeySql(intakeKeys.currentKeyId)]);
      for (let day = 60; day >= 1; day--) {
        const from = new Date(now.getTime() - day * DAY_MS);
        await run(intakeDaySql(schemas, { from: timestamp(from), to: timestamp(new Date(from.getTime() + DAY_MS)) }));
        if (day % 7 === 0) await vacuum(schemas.intake, INTAKE_DAY_CHURNED);
      }
    });
    // Statistics as autovacuum's ANALYZE leaves them; the dead rows of the last days stay for autovacuum.
    await step('analyze', async () => {
      const { rows } = await client.query<{ name: string }>(
        `SELECT format('%I.%I', schemaname, relname) AS name FROM pg_stat_user_tables WHERE schemaname = ANY($1::text[]) ORDER BY 1`,
        [SERVICES_WITH_SCHEMAS.map((service) => schemas[service])],
      );
      await run(rows.map((row) => `ANALYZE ${row.name}`));
    });
    const tables = await step('sizes', () =>
      tableSizes(
        client,
        SERVICES_WITH_SCHEMAS.map((service) => schemas[service]),
      ),
    );
    log(formatTableSizes(tables));
    return {
      profile,
      schemas,
      now: now.toISOString(),
      seconds: (performance.now() - began) / 1000,
      steps,
      tables,
      benchRequests: profile.benchRequests,
    };
  } finally {
    await client.end();
  }
}
