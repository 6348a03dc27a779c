// `npm run bench [-- --quick] [-- --only=cpu,intake,end-to-end,rates,webhooks,encryption,intake-encryption,polling,persistence,vacuum-lag,scale-out,abuse,tracing]`
// or `npm run bench -- --report` (latest.md again from latest.json, nothing measured).
// Starts the stack from dist against the local PostgreSQL, Redis and RabbitMQ (its own database
// `bedrequest_bench`, broker namespace and Redis prefix; bench-stack.ts), loads it from this process
// over loopback (figure-runs.ts), and writes bench/results/latest.json and latest.md. See bench/README.md.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { WebhookReceiver } from '@bedrequest/testing';
import { root } from '@bedrequest/stack';
import { enrolParties, removeBenchStack, startBenchStack } from './bench-stack';
import { measureFigures } from './figure-runs';
import { thisRun } from './provenance';
import { writeReport } from './report';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const only = args
  .find((arg) => arg.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const wanted = (figure: string) => !only || only.includes(figure);
/** `--profile=<dir>`: every service runs with `--cpu-prof` and writes its profile there on exit. */
const profileDir = args.find((arg) => arg.startsWith('--profile='))?.slice('--profile='.length);

const RESULTS = join(root, 'bench', 'results');
const LATEST_JSON = join(RESULTS, 'latest.json');

async function main() {
  // `--report`: latest.md made again from latest.json, as after a change to the report (report.spec.ts holds the two together).
  if (args.includes('--report')) {
    console.log(`[bench] wrote ${writeReport(JSON.parse(readFileSync(LATEST_JSON, 'utf8')) as Record<string, unknown>, RESULTS).join(' and ')}`);
    return;
  }
  const bench = await startBenchStack(profileDir);
  const { stack } = bench;
  const receiver = new WebhookReceiver();
  // Each figure carries the run that measured it, so that with --only the figures kept from earlier
  // runs keep their own date, commit and machine.
  const run = thisRun({ root, quick, only: only ?? null });
  const previous = only && existsSync(LATEST_JSON) ? (JSON.parse(readFileSync(LATEST_JSON, 'utf8')) as Record<string, unknown>) : {};
  const results: Record<string, unknown> = { ...previous };
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idleMemory = stack.residentMemory();
    const referrer = await enrolParties(stack, receiver);
    await measureFigures({ bench, receiver, referrer, quick, wanted, profileDir, idleMemory, run, results, resultsDir: RESULTS });
  } finally {
    await receiver.stop();
    await removeBenchStack(bench);
  }
  const files = writeReport(results, RESULTS);
  console.log(`[bench] wrote ${files.join(' and ')}`);
}

main().catch((error: unknown) => {
  console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
