/* eslint-disable @typescript-eslint/no-explicit-any -- the figures are read back from their JSON, each of its own shape: typing every one would only restate report.ts */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '@bedrequest/stack';
import { abuseLines } from './report-abuse';
import { tracingLines } from './report-tracing';
import { scaleOutLines } from './report-scale-out';

type Summary = { median: number; min: number; max: number; runs: number[] };
const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';
const spread = (summary: Summary | undefined, digits = 0) =>
  summary ? `${fmt(summary.median, digits)} (${fmt(summary.min, digits)}–${fmt(summary.max, digits)})` : 'n/a';
const verdict = (met: boolean) => (met ? 'met' : '**missed**');

/** Writes bench/results/latest.json (everything) and latest.md (the figures, readable). */
export function writeReport(results: Record<string, unknown>): string[] {
  const dir = join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'latest.json');
  writeFileSync(json, `${JSON.stringify(results, null, 2)}\n`);
  const md = join(dir, 'latest.md');
  writeFileSync(md, markdown(results));
  return ['bench/results/latest.json', 'bench/results/latest.md'];
}

/** CPU ms per request by process, as a one-row table. */
function cpuLines(cpu: Record<string, number> | undefined, caption = 'CPU per request of the first run, ms:'): string[] {
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

function markdown(results: Record<string, unknown>): string {
  const r = results as Record<string, any>;
  const m = r.machine;
  const lines = [
    '# Benchmark results',
    '',
    `Machine: ${m.cpus} cores (${m.cpuModel}), ${m.memoryGiB} GiB, Node ${m.node}, ${m.os}; ${m.date}.${r.quick ? ' **Quick run (short durations): not for comparison.**' : ''}`,
    'Every figure: median (min–max) over the runs noted. Load from a second process on loopback; all services, PostgreSQL, Redis and RabbitMQ on the same machine.',
    '',
  ];
  if (r.cpu?.failed) lines.push('## 0. CPU per accepted bundle', '', `**Failed:** ${r.cpu.failed}`, '');
  else if (r.cpu) {
    const c = r.cpu;
    const names = Object.keys(c.cpuMsPerBundleByProcess);
    lines.push(
      '## 0. CPU per accepted bundle, every process of the stack',
      '',
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
    );
  }
  if (r.intake?.failed) lines.push('## 1. Intake: `POST /api/v2/fhir/Bundle`', '', `**Failed:** ${r.intake.failed}`, '');
  else if (r.intake) {
    const i = r.intake;
    lines.push(
      '## 1. Intake: `POST /api/v2/fhir/Bundle`',
      '',
      `${i.bundleBytes} byte bundle (ServiceRequest, Patient, Coverage, Encounter, 3 Conditions, 2 Observations, 3 Organizations), ${i.connections} connections, ${i.secondsPerRun} s per run, 3 runs interleaved.`,
      '',
      '| | requests/s | p50 ms | p99 ms |',
      '|---|---|---|---|',
      `| intake (auth, validation, confirmed publish, intake's verdict) | ${spread(i.intake.acceptedPerSecond)} | ${spread(i.intake.latencyP50Ms, 1)} | ${spread(i.intake.latencyP99Ms, 1)} |`,
      `| bare express route parsing the same body | ${spread(i.expressBaseline.perSecond)} | | ${spread(i.expressBaseline.latencyP99Ms, 1)} |`,
      `| node:http hello world | ${spread(i.httpHelloWorld.perSecond)} | | |`,
      '',
      `Ratio intake/baseline: ${spread(i.ratioIntakeToBaseline, 3)}; target ≥ ${i.target}: ${verdict(i.ratioIntakeToBaseline.median >= i.target)}. Accepted per second: target ≥ ${i.targetPerSecond ?? 1000}: ${verdict(i.intake.acceptedPerSecond.median >= (i.targetPerSecond ?? 1000))}. Non-2xx answers: ${i.intake.non2xx}, errors: ${i.intake.errors}.`,
      '',
    );
  }
  if (r.endToEnd?.failed) lines.push('## 2. End to end: POST to webhook (automatic decline)', '', `**Failed:** ${r.endToEnd.failed}`, '');
  else if (r.endToEnd) {
    const e = r.endToEnd;
    lines.push(
      '## 2. End to end: POST to webhook (automatic decline)',
      '',
      '| rate/s | seconds | sent | 202 | webhooks arrived | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|---|---|---|',
      ...e.at200PerSecond.map(
        (s: any) =>
          `| ${s.ratePerSecond} | ${s.seconds} | ${s.sent} | ${s.accepted} | ${s.arrived} | ${fmt(s.p50Ms, 1)} | ${fmt(s.p99Ms, 1)} | ${fmt(s.maxMs, 1)} |`,
      ),
      '',
      `At 200/s: all arrived: ${e.allArrived ? 'yes' : '**no**'}; p99 target < ${e.targetP99Ms} ms: ${verdict(e.at200PerSecond.every((s: { p99Ms: number }) => s.p99Ms < e.targetP99Ms))}.`,
      '',
      ...cpuLines(e.at200PerSecond[0]?.cpuMsPerRequest),
    );
  }
  if (r.endToEndRates?.failed) lines.push('### Highest rate with p99 under 1 s', '', `**Failed:** ${r.endToEndRates.failed}`, '');
  else if (r.endToEndRates) {
    const t = r.endToEndRates;
    lines.push(
      '### Highest rate with p99 under 1 s',
      '',
      '| rate/s | seconds | sent | 202 | webhooks arrived | p50 ms | p99 ms | max ms |',
      '|---|---|---|---|---|---|---|---|',
      ...t.steps.map(
        (s: any) =>
          `| ${s.ratePerSecond} | ${s.seconds} | ${s.sent} | ${s.accepted} | ${s.arrived} | ${fmt(s.p50Ms, 1)} | ${fmt(s.p99Ms, 1)} | ${fmt(s.maxMs, 1)} |`,
      ),
      '',
      `Highest rate with p99 < 1 s: ${t.highestRateWithP99Under1s ?? 'none of those tried'}/s; target ≥ ${t.target ?? 600}/s: ${verdict((t.highestRateWithP99Under1s ?? 0) >= (t.target ?? 600))}.`,
      '',
    );
  }
  if (r.webhooks?.failed) lines.push('## 3. Webhook delivery', '', `**Failed:** ${r.webhooks.failed}`, '');
  else if (r.webhooks) {
    const w = r.webhooks;
    lines.push(
      '## 3. Webhook delivery',
      '',
      `${w.eventsPerRun} events over ${w.distinctRequests} requests per run, to a local receiver.`,
      '',
      `| notifier processes | deliveries/s |`,
      '|---|---|',
      `| 1 | ${spread(w.oneNotifierPerSecond)} |`,
      `| 2 | ${spread(w.twoNotifiersPerSecond)} |`,
      '',
      `Target ${w.target}/s with one: ${verdict(w.oneNotifierPerSecond.median >= w.target)}. Two ÷ one: ${fmt(w.twoNotifiersPerSecond.median / w.oneNotifierPerSecond.median, 2)}; target ≥ 1.0: ${verdict(w.twoNotifiersPerSecond.median >= w.oneNotifierPerSecond.median)}.`,
      '',
    );
  }
  if (r.encryption?.failed) lines.push('### 3b. The cost of encryption at rest: the notifier', '', `**Failed:** ${r.encryption.failed}`, '');
  else if (r.encryption) {
    const e = r.encryption;
    lines.push(
      '### 3b. The cost of encryption at rest: the notifier',
      '',
      `One notifier process of the same build, storing webhook secrets and Tasks sealed (AES-256-GCM, a configured DATA_KEK) or the same bytes unsealed in the same columns; ${e.eventsPerRun} events over ${e.distinctRequests} requests per run, a fresh process and schema per run, the two alternating (${e.sealedPerSecond.runs.length} runs each).`,
      '',
      '| | deliveries/s | notifier CPU ms per event | PostgreSQL CPU ms per event |',
      '|---|---|---|---|',
      `| sealed | ${spread(e.sealedPerSecond)} | ${spread(e.notifierCpuMsPerEvent.sealed, 3)} | ${spread(e.postgresCpuMsPerEvent.sealed, 3)} |`,
      `| unsealed | ${spread(e.clearPerSecond)} | ${spread(e.notifierCpuMsPerEvent.clear, 3)} | ${spread(e.postgresCpuMsPerEvent.clear, 3)} |`,
      '',
      `Sealed ÷ unsealed: deliveries/s ${fmt(e.ratioSealedToClear, 2)}, notifier CPU per event ${fmt(e.notifierCpuRatioSealedToClear, 2)} (medians). The cryptography of one event alone (seal the Task, open it, open the secret), measured in the bench process: ${spread(e.cryptographyMicrosecondsPerEvent, 1)} µs of CPU.`,
      '',
    );
  }
  if (r.intakeEncryption?.failed) lines.push('### 3c. The cost of encryption at rest: intake', '', `**Failed:** ${r.intakeEncryption.failed}`, '');
  else if (r.intakeEncryption) {
    const e = r.intakeEncryption;
    const row = (label: string, phase: any, variant: 'sealed' | 'clear') =>
      `| ${label} | ${spread(phase.perSecond[variant])} | ${spread(phase.intakeCpuMsPerBundle[variant], 3)} | ${spread(phase.postgresCpuMsPerBundle[variant], 3)} |`;
    lines.push(
      '### 3c. The cost of encryption at rest: intake',
      '',
      `One intake process of the same build, sealing bundles, their summaries and its verdicts (AES-256-GCM, a configured DATA_KEK) or storing the same bytes unsealed in the same columns. What the gateway sends (the bundle of figure 1 with the summary the gateway read) published straight to intake's queue, ${e.inFlight} awaiting their verdicts at a time: ${e.bundlesPerPhase.toLocaleString('en-US')} new requests, then a supplement of each (the same request with a note added: a new version), after ${e.warmUpPerPhase} of each not measured. Bundles per second until the last verdict; CPU from /proc once intake's outbox was empty too (so with relaying the dispatches). A fresh process and schema per run, the two alternating (${e.newRequests.perSecond.sealed.runs.length} runs each).`,
      '',
      '| | bundles/s | intake CPU ms per bundle | PostgreSQL CPU ms per bundle |',
      '|---|---|---|---|',
      row('new requests, sealed', e.newRequests, 'sealed'),
      row('new requests, unsealed', e.newRequests, 'clear'),
      row('supplements, sealed', e.supplements, 'sealed'),
      row('supplements, unsealed', e.supplements, 'clear'),
      '',
      `Sealed ÷ unsealed (medians): new requests ${fmt(e.newRequests.ratioSealedToClear, 2)} in bundles/s and ${fmt(e.newRequests.intakeCpuRatioSealedToClear, 2)} in intake CPU per bundle; supplements ${fmt(e.supplements.ratioSealedToClear, 2)} and ${fmt(e.supplements.intakeCpuRatioSealedToClear, 2)}. A bundle version takes ${fmt(e.storedBundleBytes.sealed.median)} bytes in its column sealed and ${fmt(e.storedBundleBytes.clear.median)} unsealed: PostgreSQL compresses the unsealed JSON when it stores it (TOAST), and gains nothing on ciphertext. The cryptography of one bundle alone (seal the bundle, its summary and the verdict), measured in the bench process: ${spread(e.cryptographyMicrosecondsPerBundle, 1)} µs of CPU.`,
      '',
    );
  }
  if (r.polling?.failed) lines.push('## 4. Task polling: `GET /api/v2/fhir/Task?based-on=...`', '', `**Failed:** ${r.polling.failed}`, '');
  else if (r.polling) {
    const p = r.polling;
    lines.push(
      '## 4. Task polling: `GET /api/v2/fhir/Task?based-on=...`',
      '',
      `${p.storedRequests.toLocaleString('en-US')} stored requests (two Tasks each): ${spread(p.requestsPerSecond)} requests/s, p99 ${spread(p.latencyP99Ms, 1)} ms, non-2xx ${p.non2xx}; targets ≥ 2,000/s and p99 < 20 ms: ${verdict(p.requestsPerSecond.median >= 2000 && p.latencyP99Ms.median < 20)}. Uses indexes only: ${p.usesIndex ? 'yes' : '**no**'}.`,
      '',
      ...cpuLines(p.cpuMsPerPoll, 'CPU per poll over all runs, ms (intake also records each search in the audit trail):'),
      `Plan of the ${p.statementsPerSearch ?? ''} statement(s) intake runs for one search:`,
      '',
      '```',
      ...p.plans,
      '```',
      '',
    );
  }
  if (r.persistence?.failed) lines.push('## 5. Persistence: Prisma against raw pg', '', `**Failed:** ${r.persistence.failed}`, '');
  else if (r.persistence) {
    const p = r.persistence;
    lines.push(
      '## 5. Persistence: Prisma against raw pg',
      '',
      `New requests in batches of ${p.batchSize ?? '?'} (one statement reads the batch's state, one writes it), ${p.bundlesPerRun} per run, ${p.concurrency} batches concurrent; the same statements through Prisma's \`$queryRaw\` and through a plain \`pg\` pool.`,
      '',
      `Prisma ${spread(p.prismaPerSecond)} bundles/s; raw pg ${spread(p.rawPgPerSecond)} bundles/s; ratio ${spread(p.ratioPrismaToPg, 2)}; target ${p.target}: ${verdict(p.ratioPrismaToPg.median >= p.target)}.`,
      '',
    );
  }
  lines.push(...scaleOutLines(r));
  lines.push(...tracingLines(r));
  lines.push(...abuseLines(r));
  if (r.memoryMiB) {
    const names = Object.keys(r.memoryMiB.idle);
    const highest = Math.max(...names.map((name) => Number(r.memoryMiB.afterLoad[name] ?? 0)));
    lines.push('## 6. Memory (resident, MiB)', '', `| | ${names.join(' | ')} |`, `|---|${names.map(() => '---').join('|')}|`);
    lines.push(
      `| idle | ${names.map((name) => r.memoryMiB.idle[name]).join(' | ')} |`,
      `| after load | ${names.map((name) => r.memoryMiB.afterLoad[name] ?? '').join(' | ')} |`,
      ...(r.memoryMiB.heapAfterLoad
        ? [
            `| V8 heap used / taken after load | ${names.map((name) => (r.memoryMiB.heapAfterLoad[name] ? `${r.memoryMiB.heapAfterLoad[name].usedMiB} / ${r.memoryMiB.heapAfterLoad[name].totalMiB}` : '')).join(' | ')} |`,
            `| outside the heap (external) after load | ${names.map((name) => r.memoryMiB.heapAfterLoad[name]?.externalMiB ?? '').join(' | ')} |`,
          ]
        : []),
      '',
    );
    lines.push(`Target < 200 MiB per service after load: ${verdict(highest < 200)}.`, '');
  }
  return `${lines.join('\n')}\n`;
}
