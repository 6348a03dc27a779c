// `npm run bench -- year-seed [--scale=1] [--bench-share=0.1] [--max-age-hours=24] [--rebuild] [--fresh-cluster] [--machine] [--clone=<database>]`:
// makes (or finds) the year's template database on the bench's own PostgreSQL (private-postgres.ts;
// `--machine`: on DATABASE_URL's server instead), prints its tables' rows and sizes, how long
// seeding took and the template's size, and writes the same as JSON to tmp/bench/year-seed.json.
// `--clone=<database>` copies the template into that database afterwards (timed). See bench/README.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { root } from './workspace-root';
import { BENCH_POSTGRES_DIR, describeServer, startPrivatePostgres, type PrivatePostgres } from './private-postgres';
import { BENCH_PARTY, benchBundle } from './bench-party';
import { formatTableSizes, tableSizes } from './table-sizes';
import { DEFAULT_SCHEMAS } from './year-profile';
import { cloneYearTemplate, ensureYearTemplate, TEMPLATE_DATABASE } from './year-template';

const args = process.argv.slice(2);
const option = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
const flag = (name: string) => args.includes(`--${name}`);

async function main() {
  const scale = Number(option('scale') ?? 1);
  const benchShare = Number(option('bench-share') ?? 0.1);
  const maxAgeHours = Number(option('max-age-hours') ?? 24);
  let server: PrivatePostgres | undefined;
  let adminUrl: string;
  let description: string;
  if (flag('machine')) {
    adminUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
    description = await describeServer(adminUrl);
  } else {
    server = await startPrivatePostgres({ dir: BENCH_POSTGRES_DIR, fresh: flag('fresh-cluster') });
    adminUrl = server.adminUrl;
    description = server.description;
  }
  console.log(`[year] on the ${description}`);
  try {
    const template = await ensureYearTemplate({
      adminUrl,
      scale,
      benchShare,
      bench: BENCH_PARTY,
      bundle: benchBundle(),
      maxAgeHours,
      rebuild: flag('rebuild'),
      log: (line) => console.log(line),
    });
    const templateUrl = new URL(adminUrl);
    templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
    const tables = template.seed?.tables ?? (await readSizes(templateUrl.toString()));
    if (!template.seed) console.log(formatTableSizes(tables));
    const clone = option('clone') ? await cloneYearTemplate(adminUrl, option('clone')!) : undefined;
    if (clone) console.log(`[year] cloned into ${option('clone')} in ${clone.seconds.toFixed(1)} s`);
    const summary = {
      server: description,
      template: { database: template.database, key: template.key, seededAt: template.seededAt, bytes: template.bytes },
      seed: template.seed ? { seconds: template.seed.seconds, steps: template.seed.steps, profile: template.seed.profile } : null,
      clone: clone ? { database: option('clone'), seconds: clone.seconds } : null,
      tables,
    };
    console.log(
      `[year] template ${template.database}: ${(template.bytes / 2 ** 30).toFixed(2)} GiB` +
        (template.seed ? `, seeded in ${(template.seed.seconds / 60).toFixed(1)} min` : ', kept from an earlier run'),
    );
    const out = join(root, 'tmp', 'bench', 'year-seed.json');
    mkdirSync(join(root, 'tmp', 'bench'), { recursive: true });
    writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
    console.log(`[year] wrote ${out}`);
  } finally {
    await server?.stop();
  }
}

async function readSizes(url: string) {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await tableSizes(client, Object.values(DEFAULT_SCHEMAS));
  } finally {
    await client.end();
  }
}

main().catch((error: unknown) => {
  console.error(`[year] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
