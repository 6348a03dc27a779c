/* eslint-disable @typescript-eslint/no-explicit-any -- read back from the JSON of figure-scale-out.ts, as report.ts reads its figures */

type Summary = { median: number; min: number; max: number; runs: number[] };
const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';
const spread = (summary: Summary | undefined, digits = 0) =>
  summary ? `${fmt(summary.median, digits)} (${fmt(summary.min, digits)}–${fmt(summary.max, digits)})` : 'n/a';

/** Figure 7 of latest.md: notifier and intake processes scaled out and in (figure-scale-out.ts). */
export function scaleOutLines(r: Record<string, any>): string[] {
  const lines: string[] = [];
  const n = r.notifierScaleOut;
  const i = r.intakeScaleOut;
  if (!n && !i) return lines;
  lines.push('## 7. Scale out and in', '');
  if (n?.failed) lines.push(`**Notifiers failed:** ${n.failed}`, '');
  else if (n) {
    const stopped = (n.scaledIn.stopped as any[]).filter(Boolean);
    lines.push(
      `### 7a. Notifier processes, slow receivers`,
      '',
      `Every receiver answers after ${n.answerDelayMs} ms; WEBHOOK_CONCURRENCY=${n.concurrencyPerProcess} per process (at most ${fmt(n.ceilingPerProcess)} deliveries/s each); ${n.subscriptions} subscriptions over ${n.callbackOrigins} callback origins; ${n.eventsPerRun.toLocaleString('en-US')} AdmissionResponse events per run (two per request) published straight to the notifier's queue. Deliveries per second while busy (the middle 80 % of arrivals); one process and three alternate over ${n.oneNotifierPerSecond.runs.length} runs. CPU from /proc: the notifier processes' own, and the whole PostgreSQL server's (whatever else uses it counts too).`,
      '',
      '| | deliveries/s | all events, deliveries/s | notifier CPU ms per delivery | PostgreSQL CPU ms per delivery |',
      '|---|---|---|---|---|',
      `| one process | ${spread(n.oneNotifierPerSecond, 1)} | ${spread(n.overallPerSecond.one, 1)} | ${spread(n.cpuMsPerDelivery.one.notifiers, 2)} | ${spread(n.cpuMsPerDelivery.one.postgresql, 2)} |`,
      `| three processes | ${spread(n.threeNotifiersPerSecond, 1)} | ${spread(n.overallPerSecond.three, 1)} | ${spread(n.cpuMsPerDelivery.three.notifiers, 2)} | ${spread(n.cpuMsPerDelivery.three.postgresql, 2)} |`,
      '',
      `**Three ÷ one: ${fmt(n.ratioThreeToOne, 2)}** (per run: ${(n.ratioPerRun as number[]).map((ratio) => fmt(ratio, 2)).join(', ')}); target ≥ ${n.target}: ${n.ratioThreeToOne >= n.target ? 'met' : '**missed**'}.`,
      '',
      `Scaled in: one of three stopped with SIGTERM after a third of the events had arrived, ${stopped.length} times; it held ${stopped.map((s) => s.heldAtSignal).join(', ')} attempts then, and ended in ${stopped.map((s) => `${fmt(s.stopMs)} ms (exit ${s.exitCode})`).join(', ')}. Over all runs: ${n.lost} events lost, ${n.doubled} delivered twice, ${n.outOfOrder} requests out of order, ${n.notRecorded} not recorded as delivered.`,
      '',
    );
  }
  if (i?.failed) lines.push(`**Intakes failed:** ${i.failed}`, '');
  else if (i) {
    lines.push(
      '### 7b. Intake processes',
      '',
      `What the gateway sends published straight to intake's queue, ${i.inFlight} awaiting their verdicts at a time; one intake process and two alternate over ${i.oneIntakePerSecond.runs.length} runs. ${i.newRequestsPerRun.toLocaleString('en-US')} new requests per run:`,
      '',
      '| | bundles/s | CPU ms per bundle (intakes and PostgreSQL) |',
      '|---|---|---|',
      `| one process | ${spread(i.oneIntakePerSecond)} | ${spread(i.cpuMsPerBundle.one, 2)} |`,
      `| two processes | ${spread(i.twoIntakesPerSecond)} | ${spread(i.cpuMsPerBundle.two, 2)} |`,
      '',
      `**Two ÷ one: ${fmt(i.ratioTwoToOne, 2)}** (per run: ${(i.oneIntakePerSecond.runs as number[]).map((one, run) => fmt(i.twoIntakesPerSecond.runs[run] / one, 2)).join(', ')}): intake and PostgreSQL are CPU-bound, and a second process shares the same two cores.`,
      '',
      `Order per request (${i.sequential.requests} requests each: new, supplement, revocation; a request is out of order when its stored versions do not carry the bundles in the order they were sent):`,
      '',
      '| | out of order, one process | out of order, two | not all accepted, one | not all accepted, two |',
      '|---|---|---|---|---|',
      `| each bundle sent after the verdict of the one before | ${i.sequential.outOfOrder.one} | ${i.sequential.outOfOrder.two} | ${i.sequential.notAccepted.one} | ${i.sequential.notAccepted.two} |`,
      `| the three sent back to back, verdicts awaited after | ${i.pipelined.outOfOrder.one} | ${i.pipelined.outOfOrder.two} | ${i.pipelined.notAccepted.one} | ${i.pipelined.notAccepted.two} |`,
      '',
    );
  }
  return lines;
}
