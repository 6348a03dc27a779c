// The year as a template database: seeded once (year-seed.ts) into `bedrequest_year_template`,
// whose comment records the key it was seeded for (a hash of every service's migrations, the
// seed's version, scale and the bench's party) and when; a run finding another key, or an older
// template than it accepts, seeds it again. A bench database is a copy of it (CREATE DATABASE …
// TEMPLATE, file by file), which takes seconds where the seed takes minutes.
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { lit, type BenchParty } from './seed-lifecycle';
import { migrationsOf, SEED_VERSION, SERVICES_WITH_SCHEMAS, seedYear, type SeedResult } from './year-seed';

export const TEMPLATE_DATABASE = 'bedrequest_year_template';

export interface YearTemplateOptions {
  /** An administrator's connection to the server (any database). */
  adminUrl: string;
  scale: number;
  benchShare: number;
  bench: BenchParty;
  bundle: unknown;
  /** A template seeded longer ago is seeded again: the year ends when it was seeded, and the jobs of a running service (retention, overdue, anchors) catch up with the time since. */
  maxAgeHours: number;
  /** Seed again whatever the template holds. */
  rebuild?: boolean;
  log?: (line: string) => void;
}

export interface YearTemplate {
  database: string;
  key: string;
  seededAt: string;
  /** This run's seed; undefined when the kept template was used. */
  seed?: SeedResult;
  /** pg_database_size of the template. */
  bytes: number;
}

interface Marker {
  key: string;
  seededAt: string;
}

/** What the template must have been seeded for: the services' migrations, the seed's version, its scale and the bench's party. */
export function templateKey(options: Pick<YearTemplateOptions, 'scale' | 'benchShare' | 'bench' | 'bundle'>): string {
  const hash = createHash('sha256');
  for (const service of SERVICES_WITH_SCHEMAS) {
    for (const migration of migrationsOf(service)) hash.update(`${service}/${migration.name}:${migration.checksum}\n`);
  }
  hash.update(JSON.stringify({ seed: SEED_VERSION, scale: options.scale, benchShare: options.benchShare, bench: options.bench }));
  hash.update(JSON.stringify(options.bundle));
  return hash.digest('hex').slice(0, 24);
}

const databaseUrl = (adminUrl: string, database: string) => {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

async function withAdmin<T>(adminUrl: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: databaseUrl(adminUrl, 'postgres') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** The template, seeded here unless the kept one has the key and age asked for. */
export async function ensureYearTemplate(options: YearTemplateOptions): Promise<YearTemplate> {
  const log = options.log ?? (() => undefined);
  const key = templateKey(options);
  const kept = await withAdmin(options.adminUrl, async (client) => {
    const { rows } = await client.query<{ marker: string | null; bytes: string }>(
      `SELECT shobj_description(oid, 'pg_database') AS marker, pg_database_size(oid)::text AS bytes FROM pg_database WHERE datname = $1`,
      [TEMPLATE_DATABASE],
    );
    return rows[0];
  });
  const marker = kept?.marker ? (JSON.parse(kept.marker) as Marker) : undefined;
  const ageHours = marker ? (Date.now() - Date.parse(marker.seededAt)) / 3_600_000 : Infinity;
  if (kept && marker?.key === key && ageHours <= options.maxAgeHours && !options.rebuild) {
    log(`[year] using the template ${TEMPLATE_DATABASE} seeded ${ageHours.toFixed(1)} h ago (key ${key})`);
    return { database: TEMPLATE_DATABASE, key, seededAt: marker.seededAt, bytes: Number(kept.bytes) };
  }
  log(
    `[year] seeding ${TEMPLATE_DATABASE} (${!kept ? 'none yet' : marker?.key !== key ? 'migrations, seed or scale changed' : options.rebuild ? 'asked to' : `${ageHours.toFixed(0)} h old`})`,
  );
  await withAdmin(options.adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${TEMPLATE_DATABASE}"`);
  });
  const seed = await seedYear({
    databaseUrl: databaseUrl(options.adminUrl, TEMPLATE_DATABASE),
    scale: options.scale,
    benchShare: options.benchShare,
    bench: options.bench,
    nodeEnv: 'development',
    bundle: options.bundle,
    log,
  });
  const seededAt = new Date().toISOString();
  const bytes = await withAdmin(options.adminUrl, async (client) => {
    // Written last: a seed that failed or was killed leaves a template without it, seeded again next time.
    await client.query(`COMMENT ON DATABASE "${TEMPLATE_DATABASE}" IS ${lit(JSON.stringify({ key, seededAt } satisfies Marker))}`);
    // Its pages written out, so that copies of it read them from the files.
    await client.query('CHECKPOINT');
    const { rows } = await client.query<{ bytes: string }>(`SELECT pg_database_size($1)::text AS bytes`, [TEMPLATE_DATABASE]);
    return Number(rows[0]!.bytes);
  });
  return { database: TEMPLATE_DATABASE, key, seededAt, seed, bytes };
}

/** `database` made anew as a copy of the template (file by file: PostgreSQL 15's default, through the WAL, writes every page twice); its URL and how long it took. */
export async function cloneYearTemplate(adminUrl: string, database: string): Promise<{ databaseUrl: string; seconds: number }> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error(`unusable database name "${database}"`);
  const began = performance.now();
  await withAdmin(adminUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    await client.query(`CREATE DATABASE "${database}" TEMPLATE "${TEMPLATE_DATABASE}" STRATEGY FILE_COPY`);
  });
  return { databaseUrl: databaseUrl(adminUrl, database), seconds: (performance.now() - began) / 1000 };
}

/** Removes the template (and so the kept year). */
export async function dropYearTemplate(adminUrl: string): Promise<void> {
  await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${TEMPLATE_DATABASE}" WITH (FORCE)`).then(() => undefined));
}
