/* eslint-disable @typescript-eslint/no-explicit-any -- the figures are read back from their JSON, each of its own shape: typing every one would only restate the figures */
import { complete, fmt, spread, usesIndexesOnly, verdict } from './report-format';

/** CPU ms per request by process, as a one-row table. */
export function cpuTable(cpu: Record<string, number> | undefined, caption: string): string[] {
  if (!cpu) return [];
  const names = Object.keys(cpu);
  const total = names.reduce((sum, name) => sum + cpu[name]!, 0);
  return [
    caption,
    '',
    `| total | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    `| ${fmt(total, 2)} | ${names.map((name) => fmt(cpu[name]!, 2)).join(' | ')} |`,
    '',
  ];
}

/** Figure 0 (figure-cpu.ts). */
export function cpuLines(c: any): string[] {
  const names = Object.keys(c.cpuMsPerBundleByProcess);
  return [
    `${c.seconds} s of \`POST /api/v2/fhir/Bundle\` at ${c.connections} connections (new requests to two clinics that answer themselves), then until the work it caused drained (${c.wallSecondsUntilDrained} s in all); CPU time from /proc (utime + stime) of each process before and after. ${c.accepted.toLocaleString('en-US')} bundles accepted (${fmt(c.accepted / c.seconds)}/s), non-2xx ${c.non2xx}, drained: ${c.drained ? 'yes' : '**no**'}.`,
    '',
    `| total | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    `| **${fmt(c.cpuMsPerBundle, 2)} ms** | ${names.map((name) => fmt(c.cpuMsPerBundleByProcess[name], 2)).join(' | ')} |`,
    '',
    `Average batch size (messages per unit of work): ${Object.entries(c.averageBatchSize ?? {})
      .map(([queue, size]) => `${queue} ${size}`)
      .join(', ')}. Target ≤ ${c.target} ms: ${verdict(c.cpuMsPerBundle <= c.target)}.`,
    '',
  ];
}

/** Figure 1 (figure-intake.ts): answers counted only when 2xx (load.ts). */
export function intakeLines(i: any): string[] {
  return [
    `${i.bundleBytes} byte bundle (ServiceRequest, Patient, Coverage, Encounter, 3 Conditions, 2 Observations, 3 Organizations), ${i.connections} connections, ${i.secondsPerRun} s per run, 3 runs interleaved. Per second: the 2xx answers over the run's duration.`,
    '',
    '| | 2xx/s | p50 ms | p99 ms |',
    '|---|---|---|---|',
    `| intake (auth, validation, confirmed publish, intake's verdict) | ${spread(i.intake.acceptedPerSecond)} | ${spread(i.intake.latencyP50Ms, 1)} | ${spread(i.intake.latencyP99Ms, 1)} |`,
    `| bare express route parsing the same body | ${spread(i.expressBaseline.perSecond)} | | ${spread(i.expressBaseline.latencyP99Ms, 1)} |`,
    `| node:http hello world | ${spread(i.httpHelloWorld.perSecond)} | | |`,
    '',
    `Ratio intake/baseline: ${spread(i.ratioIntakeToBaseline, 3)}; target ≥ ${i.target}: ${verdict(i.ratioIntakeToBaseline.median >= i.target)}. Accepted per second: target ≥ ${i.targetPerSecond}: ${verdict(i.intake.acceptedPerSecond.median >= i.targetPerSecond)}. Non-2xx answers: ${i.intake.non2xx}, errors: ${i.intake.errors}.`,
    '',
  ];
}

/** The rates' table, and the answers other than 202 where there were any. */
function rateTable(runs: any[]): string[] {
  const others = runs.flatMap((s) => {
    const answers = Object.entries((s.notAccepted ?? {}) as Record<string, number>);
    return answers.length === 0 ? [] : [`${s.ratePerSecond}/s: ${answers.map(([status, count]) => `${status}×${fmt(count)}`).join(', ')}`];
  });
  return [
    '| rate/s | seconds | sent | 202 | webhooks arrived | p50 ms | p99 ms | max ms |',
    '|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (s) => `| ${s.ratePerSecond} | ${s.seconds} | ${s.sent} | ${s.accepted} | ${s.arrived} | ${fmt(s.p50Ms, 1)} | ${fmt(s.p99Ms, 1)} | ${fmt(s.maxMs, 1)} |`,
    ),
    '',
    ...(others.length > 0 ? [`Answers other than 202: ${others.join('; ')}.`, ''] : []),
  ];
}

/**
 * Figure 2 (figure-end-to-end.ts). A latency of the webhooks that arrived says nothing of those
 * that did not: a target is met only when every POST was accepted and every webhook arrived.
 */
export function endToEndLines(e: any): string[] {
  const runs: any[] = e.at200PerSecond;
  const missing = runs.reduce((sum, run) => sum + (run.sent - run.arrived), 0);
  const allArrived = runs.every(complete);
  const judged = (targetMs: number, of: 'p99Ms' | 'maxMs') =>
    allArrived
      ? verdict(runs.every((run) => run[of] < targetMs))
      : `**missed** (${fmt(missing)} of ${fmt(runs.reduce((sum, run) => sum + run.sent, 0))} without a 202 and its webhook)`;
  return [
    'Latency from sending the POST to the first webhook about it arriving at a local receiver, open loop.',
    '',
    ...rateTable(runs),
    `At 200/s: every POST accepted and every webhook arrived: ${allArrived ? 'yes' : '**no**'}; p99 < ${e.targetP99Ms} ms in every run: ${judged(e.targetP99Ms, 'p99Ms')}.${
      e.targetTimingMaxMs === undefined
        ? ''
        : ` First webhook attempt within ${fmt(e.targetTimingMaxMs / 1000)} s of the 202 for every request (docs/decisions.md, "Timing"; timed here from sending the POST to the webhook's arrival, so longer than the rule's span), max < ${fmt(e.targetTimingMaxMs)} ms in every run: ${judged(e.targetTimingMaxMs, 'maxMs')}.`
    }`,
    '',
    ...cpuTable(runs[0]?.cpuMsPerRequest, 'CPU per request of the first run, ms:'),
  ];
}

/** Figure 2b (figure-end-to-end.ts): a rate counts only when every webhook of it arrived, whatever its p99. */
export function ratesLines(t: any): string[] {
  const passing = (t.steps as any[]).filter((step) => complete(step) && step.p99Ms < 1_000);
  const highest = passing.length > 0 ? Math.max(...passing.map((step) => step.ratePerSecond as number)) : null;
  const incomplete = (t.steps as any[]).filter((step) => !complete(step)).map((step) => `${step.ratePerSecond}/s`);
  return [
    ...rateTable(t.steps),
    `Highest rate with p99 < 1 s and every webhook arrived: ${highest ?? 'none of those tried'}${highest === null ? '' : '/s'}; target ≥ ${t.target}/s: ${verdict((highest ?? 0) >= t.target)}.${incomplete.length > 0 ? ` Not every POST accepted or webhook arrived at ${incomplete.join(', ')}.` : ''}`,
    '',
  ];
}

/** Figure 4 (figure-polling.ts). */
export function pollingLines(p: any): string[] {
  const indexesOnly = usesIndexesOnly(p.plans);
  return [
    `${p.storedRequests.toLocaleString('en-US')} stored requests (two Tasks each): ${spread(p.requestsPerSecond)} 2xx answers/s, p99 ${spread(p.latencyP99Ms, 1)} ms, non-2xx ${p.non2xx}; targets ≥ 2,000/s and p99 < 20 ms: ${verdict(p.requestsPerSecond.median >= 2000 && p.latencyP99Ms.median < 20)}. Uses indexes only: ${indexesOnly === null ? '**plan not captured**' : indexesOnly ? 'yes' : '**no**'}.`,
    '',
    ...cpuTable(p.cpuMsPerPoll, 'CPU per poll over all runs, ms (intake also records each search in the audit trail):'),
    ...(indexesOnly === null ? [] : [`Plan of the ${p.plans.length} statement(s) intake runs for one search:`, '', '```', ...(p.plans as string[]), '```', '']),
  ];
}
