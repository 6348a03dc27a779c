/* eslint-disable @typescript-eslint/no-explicit-any -- the figures are read back from their JSON, each of its own shape: typing every one would only restate the figures */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Machine, RunProvenance } from './provenance';
import { abuseLines } from './report-abuse';
import { cpuLines, endToEndLines, intakeLines, pollingLines, ratesLines } from './report-http';
import { intakeHandOverLines, notifierScaleOutLines } from './report-scale-out';
import { encryptionLines, intakeEncryptionLines, memoryLines, persistenceLines, webhookLines } from './report-services';
import { tracingLines } from './report-tracing';
import { vacuumLagLines } from './report-vacuum-lag';

/** The figures of latest.json in the order latest.md shows them: key, heading, and the lines of a measured one. */
const FIGURES: readonly [key: string, heading: string, lines: (figure: any) => string[]][] = [
  ['cpu', '0. CPU per accepted bundle, every process of the stack', cpuLines],
  ['intake', '1. Intake: `POST /api/v2/fhir/Bundle`', intakeLines],
  ['endToEnd', '2. End to end: POST to webhook (automatic decline)', endToEndLines],
  ['endToEndRates', '2b. Highest rate with p99 under 1 s', ratesLines],
  ['webhooks', '3. Webhook delivery', webhookLines],
  ['encryption', '3b. The cost of encryption at rest: the notifier', encryptionLines],
  ['intakeEncryption', '3c. The cost of encryption at rest: intake', intakeEncryptionLines],
  ['polling', '4. Task polling: `GET /api/v2/fhir/Task?based-on=...`', pollingLines],
  ['persistence', '5. Persistence: Prisma against raw pg', persistenceLines],
  ['vacuumLag', '5b. Vacuum lag: the outbox relay and the delivery claims', vacuumLagLines],
  ['memoryMiB', '6. Memory (resident, MiB)', memoryLines],
  ['notifierScaleOut', '7a. Scale out and in: notifier processes, slow receivers', notifierScaleOutLines],
  ['intakeHandOver', '7b. Intake: hand-over to the standby process', intakeHandOverLines],
  ['tracing', '8. The cost of tracing', tracingLines],
  ['abuse', '9. Another party under abuse', abuseLines],
];

/** Writes `dir`/latest.json (everything) and latest.md (the figures, readable; made from the JSON alone). */
export function writeReport(results: Record<string, unknown>, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(dir, 'latest.md'), markdown(results));
  return ['bench/results/latest.json', 'bench/results/latest.md'];
}

const machineOf = (m: Machine | null | undefined) =>
  m ? `${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}` : 'machine not recorded';

const commitOf = (run: RunProvenance) =>
  run.commit === null
    ? 'commit not recorded'
    : `commit ${run.commit.slice(0, 12)}${run.dirty === null ? ' (uncommitted changes not recorded)' : run.dirty ? ' **with uncommitted changes**' : ''}`;

/** Runs are told apart by when they started, at which commit, on which machine. */
const runKey = (run: RunProvenance | undefined) => (run ? JSON.stringify([run.startedAt, run.commit, run.machine]) : 'none');

/** The run that started last: its figures are the latest, every other figure is from an earlier run. */
function latestRun(figures: any[]): RunProvenance | undefined {
  const runs = figures.map((figure) => figure.run as RunProvenance | undefined).filter((run): run is RunProvenance => run !== undefined);
  return runs.reduce<RunProvenance | undefined>((latest, run) => (!latest || (run.startedAt ?? '') > (latest.startedAt ?? '') ? run : latest), undefined);
}

/** The line under a figure's heading: which run measured it, and whether that is the latest. */
function provenanceLine(figure: any, latest: RunProvenance | undefined): string {
  const run = figure.run as RunProvenance | undefined;
  if (!run) return '**Run not recorded**: date, commit and machine unknown.';
  const when = figure.measuredAt ? `measured ${figure.measuredAt}` : 'time of measuring not recorded';
  const quick = run.quick ? ' **Quick run (short durations): not for comparison.**' : '';
  if (runKey(run) === runKey(latest)) return `Latest run, ${when}.${quick}`;
  const started = run.startedAt ? `, run started ${run.startedAt}` : '';
  return `**Earlier run:** ${when}${started}; ${commitOf(run)}; ${machineOf(run.machine)}.${run.note ? ` ${run.note}` : ''}${quick}`;
}

/** latest.md: made from latest.json alone (report.spec.ts holds the committed one to that). */
export function markdown(results: Record<string, unknown>): string {
  const present = FIGURES.filter(([key]) => results[key] !== undefined);
  const latest = latestRun(present.map(([key]) => results[key]));
  const lines = [
    '# Benchmark results',
    '',
    'Generated from latest.json by bench/src/report.ts (`npm run bench`); not edited by hand. Every figure: median (min–max) over the runs noted. Load from a second process on loopback; all services, PostgreSQL, Redis and RabbitMQ on the same machine.',
    '',
    latest
      ? `Latest run: started ${latest.startedAt ?? '(start not recorded)'}; ${commitOf(latest)}; ${machineOf(latest.machine)}.${latest.note ? ` ${latest.note}` : ''}${latest.quick ? ' **Quick run (short durations): not for comparison.**' : ''} A figure measured by an earlier run (\`--only\` keeps the others) says so, with its own date, commit and machine.`
      : 'No figure records its run.',
    '',
  ];
  for (const [key, heading, render] of present) {
    const figure = results[key] as any;
    lines.push(`## ${heading}`, '', provenanceLine(figure, latest), '', ...(figure.failed ? [`**Failed:** ${figure.failed}`, ''] : render(figure)));
  }
  return `${lines.join('\n')}\n`;
}
