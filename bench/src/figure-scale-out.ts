import { launchStack } from '@bedrequest/stack';
import { NotifierFleet, type FleetRun, type StoppedInstance } from '../../apps/notifier/src/testing/notifier-fleet';
import { summarize } from './load';
import { cpuSpent, sampleCpu } from './process-cpu';

/** Three notifier processes against one: slow receivers are answered by adding processes (docs/architecture.md, "Scaling"). */
const NOTIFIER_TARGET = 2.7;

/**
 * Figure 7a: notifier processes scaled out and in (apps/notifier/src/testing/notifier-fleet.ts, the
 * fault suite's scale-out fault over more events and runs). Receivers that answer after 200 ms,
 * WEBHOOK_CONCURRENCY=8 per process, `parties` subscriptions over `receivers` callback origins;
 * each run: one process, then three, then three of which one is stopped with SIGTERM after a third
 * of the events arrived, then back to one (SIGTERM again), so that the one-process and
 * three-process runs alternate. Deliveries per second while busy (the middle 80 % of arrivals), CPU
 * of the notifier processes and PostgreSQL per delivery, and what the stopped process left behind.
 */
export async function notifierScaleOutFigure(options: { databaseUrl: string; amqpUrl: string; events: number; runs: number; nodeArgs?: readonly string[] }) {
  const fleet = await NotifierFleet.start({
    launch: (env) =>
      launchStack({
        mode: 'processes',
        services: [],
        isolate: 'bench_scale',
        provision: false,
        env,
        ...(options.nodeArgs ? { nodeArgs: options.nodeArgs } : {}),
      }),
    databaseUrl: options.databaseUrl,
    amqpUrl: options.amqpUrl,
    concurrency: 8,
    answerDelayMs: 200,
    parties: 100,
    receivers: 10,
  });
  const one: (FleetRun & { cpuMsPerDelivery: Record<string, number> })[] = [];
  const three: (FleetRun & { cpuMsPerDelivery: Record<string, number> })[] = [];
  const scaledIn: (FleetRun & { midRun?: StoppedInstance })[] = [];
  const measured = async (events: number) => {
    const processes = fleet.processes();
    const before = sampleCpu(processes);
    const run = await fleet.deliver(events);
    const spent = cpuSpent(before, sampleCpu(processes));
    const notifiers = [...processes.keys()].reduce((sum, name) => sum + spent[name]!, 0);
    return { ...run, cpuMsPerDelivery: { notifiers: notifiers / events, postgresql: spent.postgresql! / events } };
  };
  try {
    for (let run = 0; run < options.runs; run++) {
      console.log(`[bench]   run ${run + 1}: one notifier, three, three with one stopped (SIGTERM) mid-run`);
      one.push(await measured(options.events));
      await fleet.scaleTo(3);
      three.push(await measured(options.events));
      scaledIn.push(
        await fleet.deliver(options.events, {
          afterDelivered: Math.round(options.events / 3),
          action: () => fleet.terminateOne({ whileHoldingWithinMs: 5_000 }),
        }),
      );
      while (fleet.size > 1) await fleet.terminateOne();
    }
  } finally {
    await fleet.stop();
  }
  const perSecond = { one: summarize(one.map((run) => run.perSecond)), three: summarize(three.map((run) => run.perSecond)) };
  const all = [...one, ...three, ...scaledIn];
  return {
    eventsPerRun: options.events,
    concurrencyPerProcess: 8,
    answerDelayMs: 200,
    subscriptions: 100,
    callbackOrigins: 10,
    ceilingPerProcess: 8 / 0.2,
    oneNotifierPerSecond: perSecond.one,
    threeNotifiersPerSecond: perSecond.three,
    ratioThreeToOne: perSecond.three.median / perSecond.one.median,
    ratioPerRun: one.map((run, index) => three[index]!.perSecond / run.perSecond),
    overallPerSecond: { one: summarize(one.map((run) => run.overallPerSecond)), three: summarize(three.map((run) => run.overallPerSecond)) },
    cpuMsPerDelivery: {
      one: {
        notifiers: summarize(one.map((run) => run.cpuMsPerDelivery.notifiers!)),
        postgresql: summarize(one.map((run) => run.cpuMsPerDelivery.postgresql!)),
      },
      three: {
        notifiers: summarize(three.map((run) => run.cpuMsPerDelivery.notifiers!)),
        postgresql: summarize(three.map((run) => run.cpuMsPerDelivery.postgresql!)),
      },
    },
    scaledIn: {
      perSecond: summarize(scaledIn.map((run) => run.perSecond)),
      stopped: scaledIn.map((run) => run.midRun),
    },
    lost: all.reduce((sum, run) => sum + run.lost, 0),
    doubled: all.reduce((sum, run) => sum + run.doubled, 0),
    outOfOrder: all.reduce((sum, run) => sum + run.outOfOrder, 0),
    notRecorded: all.reduce((sum, run) => sum + (run.events - run.recordedDelivered), 0),
    target: NOTIFIER_TARGET,
  };
}
