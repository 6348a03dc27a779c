/* eslint-disable @typescript-eslint/no-explicit-any -- read back from the JSON of figure-abuse.ts, as report.ts reads its figures */

import { fmt } from './report-format';

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)] ?? Number.NaN;
/** `median (min–max)` of `values`, or the value alone for one run. */
const spread = (values: number[], digits = 0) =>
  values.length === 1 ? fmt(values[0]!, digits) : `${fmt(median(values), digits)} (${fmt(Math.min(...values), digits)}–${fmt(Math.max(...values), digits)})`;

/** `{ 400: 12, 429: 3000 }` → `400×12, 429×3,000` (0: no answer), summed over the runs. */
const byStatus = (statuses: Record<string, number>[]) => {
  const sum = new Map<string, number>();
  for (const run of statuses) for (const [status, count] of Object.entries(run)) sum.set(status, (sum.get(status) ?? 0) + count);
  return [...sum]
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, count]) => `${status === '0' ? 'no answer' : status}×${fmt(count)}`)
    .join(', ');
};

/** Figure 9 of latest.md: another party's POST p99 under abuse (figure-abuse.ts). */
export function abuseLines(a: any): string[] {
  const runs: any[] = a.runs;
  const sum = (pick: (run: any) => number) => runs.reduce((total, run) => total + pick(run), 0);
  const paces: string[] = runs[0].victim.map((v: any) => v.pace);
  const bytesPerSecond = Number(a.limits.RATE_LIMIT_BYTES_PER_SECOND);
  return [
    `${runs.length} runs. In each, the referrer of the other figures POSTs bundles for ${a.seconds} s at each pace below, then as long again while another party, from a process of its own, abuses the service at the gateway's deployed limits (200 requests/s per party and ${fmt(bytesPerSecond / 2 ** 20)} MiB/s of request bodies, 20/s per address without a token). Over all runs: ${fmt(sum((run) => run.tried.flood))} Task searches over its rate (${byStatus(runs.map((run) => run.statuses.flood))}), ${fmt(sum((run) => run.tried.huge))} bundles of 40,000 performers (${fmt(runs[0].hugeBundleMiB, 1)} MiB each; ${byStatus(runs.map((run) => run.statuses.huge))}), ${fmt(sum((run) => run.tried.logins))} failed logins from one address (${byStatus(runs.map((run) => run.statuses.logins))}), ${fmt(runs[0].tried.slow)} slowloris connections each run. The abusing client itself used ${spread(runs.map((run) => 100 * run.abuserCpuShare))} % of a core of the same machine.`,
    '',
    '| the referrer sends | POSTs before / under abuse (all runs) | not 202 | p99 ms before | p99 ms under abuse | p99 under abuse ÷ before |',
    '|---|---|---|---|---|---|',
    ...paces.map((pace, index) => {
      const of = (pick: (v: any) => number) => runs.map((run) => pick(run.victim[index]));
      return `| ${pace} | ${fmt(sum((run) => run.victim[index].unloaded.posts))} / ${fmt(sum((run) => run.victim[index].underAbuse.posts))} | ${fmt(sum((run) => run.victim[index].unloaded.notAccepted + run.victim[index].underAbuse.notAccepted))} | ${spread(
        of((v) => v.unloaded.p99Ms),
        1,
      )} | ${spread(
        of((v) => v.underAbuse.p99Ms),
        1,
      )} | **${spread(
        of((v) => v.ratio),
        2,
      )}** (runs: ${of((v) => v.ratio)
        .map((ratio) => fmt(ratio, 2))
        .join(', ')}) |`;
    }),
    '',
    ...cpuLines(runs, paces),
    `Target: p99 under abuse at most 2 × before, in the median: ${paces.map((pace, index) => `${pace}: ${median(runs.map((run) => run.victim[index].ratio)) <= 2 ? 'met' : '**missed**'}`).join('; ')}.`,
    '',
  ];
}

/** Each process's share of a core while the victim sent, alone and under abuse (median over the runs). */
function cpuLines(runs: any[], paces: string[]): string[] {
  if (!runs[0].victim[0].cpuShare) return [];
  const names = Object.keys(runs[0].victim[0].cpuShare.unloaded);
  const share = (index: number, phase: 'unloaded' | 'underAbuse', name: string) =>
    fmt(100 * median(runs.map((run) => run.victim[index].cpuShare[phase][name] ?? 0)));
  const total = (index: number, phase: 'unloaded' | 'underAbuse') =>
    fmt(100 * median(runs.map((run) => Object.values(run.victim[index].cpuShare[phase] as Record<string, number>).reduce((sum, value) => sum + value, 0))));
  return [
    'Where the cores went while the referrer sent: % of one core per process, alone → under abuse (median over the runs; the abusing client not included):',
    '',
    `| the referrer sends | ${names.join(' | ')} | all |`,
    `|---|${names.map(() => '---|').join('')}---|`,
    ...paces.map(
      (pace, index) =>
        `| ${pace} | ${names.map((name) => `${share(index, 'unloaded', name)} → ${share(index, 'underAbuse', name)}`).join(' | ')} | ${total(index, 'unloaded')} → ${total(index, 'underAbuse')} |`,
    ),
    '',
  ];
}
