// The figures in the order the bench measures them, each with its settings (smaller with --quick):
// every one measured against the one bench stack, its result or failure kept with the run that
// measured it, and the report written after each.
import pino from 'pino';
import { Registry } from 'prom-client';
import { connectServiceBroker } from '@bedrequest/messaging';
import type { WebhookReceiver } from '@bedrequest/testing';
import { amqpUrl, CLINIC_ACCEPTING, CLINIC_ACCEPTING_2, CLINIC_DECLINING, PROFILE_BASE, type BenchStack } from './bench-stack';
import { cpuFigure } from './figure-cpu';
import { encryptionFigure } from './figure-encryption';
import { endToEndFigure, highestRateFigure } from './figure-end-to-end';
import { intakeFigure } from './figure-intake';
import { intakeEncryptionFigure } from './figure-intake-encryption';
import { persistenceFigure } from './figure-persistence';
import { pollingFigure, seedRequests } from './figure-polling';
import { tracingFigure } from './figure-tracing';
import { HEAVY, NATIONAL_DAY, vacuumLagFigure } from './figure-vacuum-lag';
import { abuseFigure } from './figure-abuse';
import { heapOf } from './heap';
import { intakeHandOverFigure } from './figure-intake-handover';
import { notifierScaleOutFigure } from './figure-scale-out';
import { webhookFigure } from './figure-webhooks';
import type { RunProvenance } from './provenance';
import { writeReport } from './report';

export interface FigureRuns {
  bench: BenchStack;
  receiver: WebhookReceiver;
  referrer: { token: string; partyId: string };
  quick: boolean;
  /** Whether `--only` (or its absence) asks for this figure. */
  wanted: (figure: string) => boolean;
  profileDir: string | undefined;
  /** The stack's resident memory before any load (the memory figure). */
  idleMemory: Record<string, number>;
  /** The run that measures, kept with each figure. */
  run: RunProvenance;
  /** The figures so far, by name (those of earlier runs kept with --only); each is added here. */
  results: Record<string, unknown>;
  /** Where the report is written after each figure. */
  resultsDir: string;
}

/** Measures the wanted figures, in order, and the memory figure after the load. */
export async function measureFigures(runs: FigureRuns): Promise<void> {
  const { bench, receiver, referrer, quick, wanted, profileDir, run, results } = runs;
  const { stack, namespace, databaseUrl } = bench;
  const measure = async (name: string, figure: () => Promise<unknown>) => {
    try {
      results[name] = { ...((await figure()) as object), measuredAt: new Date().toISOString(), run };
    } catch (error) {
      console.error(`[bench] ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
      results[name] = { failed: error instanceof Error ? error.message : String(error), measuredAt: new Date().toISOString(), run };
    }
    // Written after every figure, so an interrupted run keeps what it measured.
    writeReport(results, runs.resultsDir);
  };
  if (wanted('cpu')) {
    console.log('[bench] 0 CPU per accepted bundle, every process of the stack');
    await measure('cpu', () =>
      cpuFigure({
        stack,
        databaseUrl,
        gatewayUrl: stack.gatewayUrl,
        token: referrer.token,
        performerIks: [CLINIC_ACCEPTING, CLINIC_ACCEPTING_2],
        seconds: quick ? 5 : 15,
        connections: 16,
      }),
    );
  }
  if (wanted('intake')) {
    console.log('[bench] 1/5 intake vs baseline');
    await measure('intake', () =>
      intakeFigure({
        gatewayUrl: stack.gatewayUrl,
        token: referrer.token,
        performerIks: [CLINIC_ACCEPTING, CLINIC_ACCEPTING_2],
        runs: 3,
        seconds: quick ? 3 : 10,
        connections: 32,
      }),
    );
  }
  if (wanted('end-to-end')) {
    console.log('[bench] 2/5 end to end at 200 requests/s');
    await measure('endToEnd', () =>
      endToEndFigure({
        stack,
        gatewayUrl: stack.gatewayUrl,
        token: referrer.token,
        performerIks: [CLINIC_DECLINING],
        receiver,
        runs: quick ? 1 : 3,
        seconds: quick ? 5 : 60,
      }),
    );
  }
  if (wanted('rates')) {
    console.log('[bench] 2b/5 highest rate with end-to-end p99 under 1 s');
    await measure('endToEndRates', () =>
      highestRateFigure({
        stack,
        gatewayUrl: stack.gatewayUrl,
        token: referrer.token,
        performerIks: [CLINIC_DECLINING],
        receiver,
        stepSeconds: quick ? 3 : 15,
        rates: (process.env.BENCH_RATES ?? '50,100,200,300,400,500,600,700,800,1000').split(',').map(Number),
      }),
    );
  }
  if (wanted('webhooks')) {
    console.log('[bench] 3/5 webhook deliveries');
    const broker = await connectServiceBroker(
      { AMQP_URL: amqpUrl(), AMQP_NAMESPACE: namespace, AMQP_PREFETCH: 32, AMQP_DELIVERY_LIMIT: 5 },
      { logger: pino({ level: 'warn' }), metrics: new Registry() },
    );
    try {
      await measure('webhooks', () =>
        webhookFigure({
          stack,
          broker,
          receiver,
          referrerPartyId: referrer.partyId,
          token: referrer.token,
          count: quick ? 500 : 2_000,
          requests: 200,
          runs: 3,
        }),
      );
    } finally {
      await broker.stop();
    }
  }
  if (wanted('encryption')) {
    console.log('[bench] 3b/5 webhook deliveries with secrets and Tasks sealed at rest, and without');
    await measure('encryption', () =>
      encryptionFigure({
        stack,
        databaseUrl,
        amqpUrl: amqpUrl(),
        namespace,
        receiver,
        referrer,
        count: quick ? 500 : 2_000,
        requests: 200,
        runs: quick ? 2 : 4,
      }),
    );
  }
  if (wanted('intake-encryption')) {
    console.log('[bench] 3c/5 intake accepting bundles sealed at rest, and without');
    await measure('intakeEncryption', () =>
      intakeEncryptionFigure({
        stack,
        databaseUrl,
        amqpUrl: amqpUrl(),
        namespace,
        referrerPartyId: referrer.partyId,
        profileBase: PROFILE_BASE,
        performerIks: [CLINIC_ACCEPTING, CLINIC_ACCEPTING_2],
        count: quick ? 500 : 3_000,
        inFlight: 32,
        runs: quick ? 2 : 4,
      }),
    );
  }
  if (wanted('polling')) {
    console.log('[bench] 4/5 Task polling with 1,000,000 stored requests');
    const count = quick ? 10_000 : 1_000_000;
    const seeded = await seedRequests({
      databaseUrl,
      schema: 'intake',
      partyId: referrer.partyId,
      count,
      clinicIks: [CLINIC_ACCEPTING, CLINIC_ACCEPTING_2],
    });
    console.log(`[bench] seeded ${seeded.requests} requests with ${seeded.tasks} Tasks in ${seeded.seconds} s`);
    await measure('polling', () =>
      pollingFigure({
        gatewayUrl: stack.gatewayUrl,
        token: referrer.token,
        databaseUrl,
        schema: 'intake',
        partyId: referrer.partyId,
        profileBase: PROFILE_BASE,
        count,
        runs: 3,
        seconds: quick ? 3 : 10,
        connections: 16,
        pids: new Map(stack.instances().map((instance) => [instance.name, instance.pid] as const)),
      }),
    );
  }
  if (wanted('persistence')) {
    console.log('[bench] 5/5 persistence: Prisma against raw pg');
    await measure('persistence', () =>
      persistenceFigure({
        databaseUrl,
        profileBase: PROFILE_BASE,
        performerIks: [CLINIC_ACCEPTING, CLINIC_ACCEPTING_2],
        runs: 3,
        count: quick ? 320 : 3_200,
        concurrency: 4,
        batchSize: 16,
      }),
    );
  }
  if (wanted('vacuum-lag')) {
    console.log('[bench] 5b vacuum lag: the outbox relay and the delivery claims on tables VACUUM has not reached, then vacuumed');
    await measure('vacuumLag', () =>
      vacuumLagFigure({
        databaseUrl,
        amqpUrl: amqpUrl(),
        namespace,
        histories: quick ? [NATIONAL_DAY] : [NATIONAL_DAY, HEAVY],
        messages: quick ? 480 : 4_800,
        deliveries: quick ? 640 : 6_400,
        runs: quick ? 1 : 3,
      }),
    );
  }
  if (wanted('scale-out')) {
    console.log('[bench] 7a scale out and in: one notifier process against three with slow receivers');
    await measure('notifierScaleOut', () =>
      notifierScaleOutFigure({
        databaseUrl,
        amqpUrl: amqpUrl(),
        events: quick ? 600 : 2_400,
        runs: quick ? 1 : 3,
        ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
      }),
    );
    const broker = await connectServiceBroker(
      { AMQP_URL: amqpUrl(), AMQP_NAMESPACE: namespace, AMQP_PREFETCH: 64, AMQP_DELIVERY_LIMIT: 5 },
      { logger: pino({ level: 'warn' }), metrics: new Registry() },
    );
    try {
      console.log('[bench] 7b intake: hand-over from the active process to its standby, order per request');
      await measure('intakeHandOver', () =>
        intakeHandOverFigure({
          stack,
          broker,
          databaseUrl,
          referrerPartyId: referrer.partyId,
          profileBase: PROFILE_BASE,
          performerIks: [CLINIC_ACCEPTING, CLINIC_ACCEPTING_2],
          flows: quick ? 100 : 500,
          runs: quick ? 1 : 3,
        }),
      );
    } finally {
      await broker.stop();
    }
  }
  if (wanted('abuse')) {
    console.log('[bench] 9 another party under abuse: its POST p99 before and while one party abuses at the limits');
    await measure('abuse', () =>
      abuseFigure({ stack, victimToken: referrer.token, performerIks: [CLINIC_ACCEPTING, CLINIC_DECLINING], seconds: quick ? 5 : 30, runs: quick ? 1 : 3 }),
    );
  }
  results.memoryMiB = {
    idle: runs.idleMemory,
    afterLoad: stack.residentMemory(),
    heapAfterLoad: await heapOf(stack),
    measuredAt: new Date().toISOString(),
    run,
  };
  // Last: it starts every service again (with tracing on, then off), which resets what the memory figure reads.
  if (wanted('tracing')) {
    console.log('[bench] 8 the cost of tracing: CPU per bundle with tracing off and on');
    await measure('tracing', () =>
      tracingFigure({
        stack,
        databaseUrl,
        token: referrer.token,
        performerIks: [CLINIC_ACCEPTING, CLINIC_DECLINING],
        seconds: quick ? 5 : 10,
        connections: 16,
        pairs: quick ? 1 : 3,
      }),
    );
  }
}
