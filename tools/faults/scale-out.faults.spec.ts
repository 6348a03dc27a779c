import { launchStack } from '@bedrequest/stack';
import { testEnvironment } from '@bedrequest/testing';
import { NotifierFleet, type FleetRun, type StoppedInstance } from '../../apps/notifier/src/testing/notifier-fleet';
import { reportFigures, seconds } from './support/figures';

/**
 * Issue 25, "Scale out and in": adding notifier processes is the answer to slow receivers. Each
 * process has WEBHOOK_CONCURRENCY=8 attempts in flight; every receiver answers after 200 ms; 60
 * referrers each have their own subscription, their callback URLs spread over 6 receivers. One
 * process can deliver at most 8 / 0.2 s = 40 events/s, three 120/s: the claims in PostgreSQL
 * (FOR UPDATE SKIP LOCKED, docs/architecture.md, "Scaling") must let three processes deliver at
 * least 2.7× what one delivers. Then one of three is stopped with SIGTERM in the middle of a run,
 * as an orchestrator scales in: it finishes the attempts it holds and records them, and the other
 * two deliver the rest: no event lost, none delivered twice, the events of each request in order.
 * One process runs before the three and again after them (the third stopped too), and the three
 * are compared with the mean of the two, so that a machine busy with something else for a while
 * weighs on both sides. The benchmark measures the same over more events and runs
 * (bench/src/figure-scale-out.ts).
 */
const EVENTS = 480;

type Run = FleetRun & { midRun?: StoppedInstance };

describe('notifier processes scaled out and in, with slow receivers', () => {
  let fleet: NotifierFleet;
  const runs: Partial<Record<'oneBefore' | 'three' | 'scaledIn' | 'oneAfter', Run>> = {};
  const ratio = () => runs.three && runs.oneBefore && runs.oneAfter && runs.three.perSecond / ((runs.oneBefore.perSecond + runs.oneAfter.perSecond) / 2);

  beforeAll(async () => {
    const env = testEnvironment();
    fleet = await NotifierFleet.start({
      launch: (fleetEnv) => launchStack({ mode: 'processes', services: [], isolate: 'scale', provision: false, env: fleetEnv }),
      databaseUrl: env.databaseUrl,
      amqpUrl: env.amqpUrl,
      concurrency: 8,
      answerDelayMs: 200,
      parties: 60,
      receivers: 6,
    });
  }, 120_000);

  afterAll(async () => {
    const rate = (run: FleetRun | undefined) => (run ? `${run.perSecond.toFixed(1)}/s` : '?');
    const { oneBefore, three, scaledIn, oneAfter } = runs;
    const stopped = scaledIn?.midRun;
    reportFigures(
      'notifiers scaled out and in',
      `${EVENTS} events per run to receivers answering after 200 ms, WEBHOOK_CONCURRENCY=8: one process ${rate(oneBefore)} and ${rate(oneAfter)}, three ${rate(three)}, ` +
        `ratio ${ratio()?.toFixed(2) ?? '?'}; one of three stopped (SIGTERM) after ${stopped?.deliveredBefore ?? '?'} deliveries ` +
        `holding ${stopped?.heldAtSignal ?? '?'} attempts, ended in ${seconds(stopped?.stopMs ?? 0)} (exit ${stopped?.exitCode ?? '?'}): ` +
        `${scaledIn?.lost ?? '?'} lost, ${scaledIn?.doubled ?? '?'} doubled, ${scaledIn?.recordedDelivered ?? '?'} recorded as delivered`,
    );
    await fleet?.stop();
  }, 60_000);

  it('three processes deliver at least 2.7× what one delivers; one stopped with SIGTERM mid-run loses and doubles nothing', async () => {
    runs.oneBefore = await fleet.deliver(EVENTS);
    await fleet.scaleTo(3);
    runs.three = await fleet.deliver(EVENTS);
    runs.scaledIn = await fleet.deliver(EVENTS, { afterDelivered: EVENTS / 3, action: () => fleet.terminateOne({ whileHoldingWithinMs: 5_000 }) });
    await fleet.terminateOne();
    runs.oneAfter = await fleet.deliver(EVENTS);

    const { oneBefore, three, scaledIn, oneAfter } = runs;
    for (const run of [oneBefore, three, scaledIn, oneAfter]) {
      expect({ lost: run.lost, doubled: run.doubled, outOfOrder: run.outOfOrder, recordedDelivered: run.recordedDelivered }).toEqual({
        lost: 0,
        doubled: 0,
        outOfOrder: 0,
        recordedDelivered: EVENTS,
      });
    }
    // All three took part.
    expect(Object.values(three.attemptsByInstance).every((attempts) => attempts > EVENTS / 6)).toBe(true);
    expect(ratio()).toBeGreaterThanOrEqual(2.7);
    // It ended by itself (exit 0 after its stop, not killed), while it held attempts.
    expect(scaledIn.midRun).toMatchObject({ exitCode: 0, signal: null });
    expect(scaledIn.midRun!.heldAtSignal).toBeGreaterThan(0);
    expect(scaledIn.midRun!.deliveredBefore).toBeLessThan(EVENTS / 2);
  }, 150_000);
});
