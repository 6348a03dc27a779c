/* eslint-disable @typescript-eslint/no-explicit-any -- read back from the JSON of figure-scale-out.ts and figure-intake-handover.ts, as report.ts reads its figures */
import { fmt, spread, verdict } from './report-format';

/** Figure 7a of latest.md: notifier processes scaled out and in (figure-scale-out.ts). */
export function notifierScaleOutLines(n: any): string[] {
  const stopped = (n.scaledIn.stopped as any[]).filter(Boolean);
  return [
    `Every receiver answers after ${n.answerDelayMs} ms; WEBHOOK_CONCURRENCY=${n.concurrencyPerProcess} per process (at most ${fmt(n.ceilingPerProcess)} deliveries/s each); ${n.subscriptions} subscriptions over ${n.callbackOrigins} callback origins; ${n.eventsPerRun.toLocaleString('en-US')} AdmissionResponse events per run (two per request) published straight to the notifier's queue. Deliveries per second while busy (the middle 80 % of arrivals); one process and three alternate over ${n.oneNotifierPerSecond.runs.length} runs. CPU from /proc: the notifier processes' own, and the whole PostgreSQL server's (whatever else uses it counts too).`,
    '',
    '| | deliveries/s | all events, deliveries/s | notifier CPU ms per delivery | PostgreSQL CPU ms per delivery |',
    '|---|---|---|---|---|',
    `| one process | ${spread(n.oneNotifierPerSecond, 1)} | ${spread(n.overallPerSecond.one, 1)} | ${spread(n.cpuMsPerDelivery.one.notifiers, 2)} | ${spread(n.cpuMsPerDelivery.one.postgresql, 2)} |`,
    `| three processes | ${spread(n.threeNotifiersPerSecond, 1)} | ${spread(n.overallPerSecond.three, 1)} | ${spread(n.cpuMsPerDelivery.three.notifiers, 2)} | ${spread(n.cpuMsPerDelivery.three.postgresql, 2)} |`,
    '',
    `**Three ÷ one: ${fmt(n.ratioThreeToOne, 2)}** (per run: ${(n.ratioPerRun as number[]).map((ratio) => fmt(ratio, 2)).join(', ')}); target ≥ ${n.target}: ${verdict(n.ratioThreeToOne >= n.target)}.`,
    '',
    `Scaled in: one of three stopped with SIGTERM after a third of the events had arrived, ${stopped.length} times; it held ${stopped.map((s) => s.heldAtSignal).join(', ')} attempts then, and ended in ${stopped.map((s) => `${fmt(s.stopMs)} ms (exit ${s.exitCode})`).join(', ')}. Over all runs: ${n.lost} events lost, ${n.doubled} delivered twice, ${n.outOfOrder} requests out of order, ${n.notRecorded} not recorded as delivered.`,
    '',
  ];
}

/** Figure 7b of latest.md: intake's hand-over from the active process to its standby (figure-intake-handover.ts). */
export function intakeHandOverLines(h: any): string[] {
  const row = (label: string, phase: any) =>
    `| ${label} | ${fmt(phase.requests)} | ${fmt(phase.outOfOrder)} | ${fmt(phase.notAccepted)} | ${spread(phase.longestGapMs)} |`;
  const wrong = h.alone.outOfOrder + h.alone.notAccepted + h.handOver.outOfOrder + h.handOver.notAccepted;
  const runs = h.alone.longestGapMs.runs.length;
  // A stop that came once every verdict was in shows nothing about a hand-over.
  const midRun = (h.handOver.verdictsAfterExit as number[]).every((count) => count > 0);
  return [
    `Intake's queue has a single active consumer (docs/architecture.md, "Scaling"): a second intake process stands by and takes over, in queue order, when the active one goes; it adds no throughput. ${fmt(h.requestsPerPhase)} requests per phase, each one's three bundles (new, supplement, revocation) published back to back straight to intake's queue, verdicts awaited after. ${runs === 1 ? 'One run' : `${runs} runs`}, each: the stack's intake alone; a second one started and the active one stopped with SIGTERM once a third of the verdicts came; the stopped one started again and the active one stopped the same way (two hand-overs a run).`,
    '',
    '| | requests | out of order | not all accepted | longest wait between two verdicts, ms |',
    '|---|---|---|---|---|',
    row('one process, no hand-over', h.alone),
    row('across a hand-over', h.handOver),
    '',
    `The stopped process ended ${spread(h.handOver.stopMs)} ms after its SIGTERM; verdicts after it had exited (the standby's): ${(h.handOver.verdictsAfterExit as number[]).map((count) => fmt(count)).join(', ')}.${midRun ? '' : ' **Not every stop came while verdicts were outstanding.**'} Requests out of order or not all accepted: ${fmt(wrong)}; target ${h.target}, every hand-over mid-run: ${verdict(wrong <= h.target && midRun)}.`,
    '',
  ];
}
