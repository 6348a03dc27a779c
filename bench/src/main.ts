// `npm run bench [-- --quick] [-- --only=cpu,intake,end-to-end,rates,webhooks,encryption,intake-encryption,polling,persistence,scale-out,abuse,tracing]`
// or `npm run bench -- --report` (latest.md again from latest.json, nothing measured).
// Starts the stack from dist against the local PostgreSQL, Redis and RabbitMQ (its own database
// `bedrequest_bench`, broker namespace and Redis prefix), loads it from this process over loopback,
// and writes bench/results/latest.json and latest.md. See bench/README.md.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { Registry } from 'prom-client';
import { declareTopology } from '@bedrequest/contracts';
import { connectServiceBroker } from '@bedrequest/messaging';
import { WebhookReceiver, deleteBrokerTopology } from '@bedrequest/testing';
import { buildServices, launchStack, root } from '@bedrequest/stack';
import { FHIR_BASE, REFERRER_IK } from './bundles';
import { cpuFigure } from './figure-cpu';
import { encryptionFigure } from './figure-encryption';
import { endToEndFigure, highestRateFigure } from './figure-end-to-end';
import { intakeFigure } from './figure-intake';
import { intakeEncryptionFigure } from './figure-intake-encryption';
import { persistenceFigure } from './figure-persistence';
import { pollingFigure, seedRequests } from './figure-polling';
import { tracingFigure } from './figure-tracing';
import { abuseFigure } from './figure-abuse';
import { heapOf } from './heap';
import { intakeHandOverFigure } from './figure-intake-handover';
import { notifierScaleOutFigure } from './figure-scale-out';
import { webhookFigure } from './figure-webhooks';
import { admin, login } from './parties';
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

const CLINIC_ACCEPTING = '512200001';
const CLINIC_ACCEPTING_2 = '512200002';
const CLINIC_DECLINING = '512200003';
const PROFILE_BASE = 'https://bedrequest.example.org';
const RESULTS = join(root, 'bench', 'results');
const LATEST_JSON = join(RESULTS, 'latest.json');

async function recreateDatabase(url: string, name: string, drop = false) {
  const adminUrl = new URL(url);
  adminUrl.pathname = '/postgres';
  const client = new Client({ connectionString: adminUrl.toString() });
  await client.connect();
  await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  if (!drop) await client.query(`CREATE DATABASE "${name}"`);
  await client.end();
}

async function main() {
  // `--report`: latest.md made again from latest.json, as after a change to the report (report.spec.ts holds the two together).
  if (args.includes('--report')) {
    console.log(`[bench] wrote ${writeReport(JSON.parse(readFileSync(LATEST_JSON, 'utf8')) as Record<string, unknown>, RESULTS).join(' and ')}`);
    return;
  }
  const base = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bedrequest';
  const databaseUrl = new URL(base);
  databaseUrl.pathname = '/bedrequest_bench';
  const runId = randomBytes(3).toString('hex');
  const namespace = `bench-${runId}`;
  const env = {
    NODE_ENV: 'development',
    LOG_LEVEL: 'warn',
    DATABASE_URL: databaseUrl.toString(),
    AMQP_NAMESPACE: namespace,
    REDIS_KEY_PREFIX: `bench:${runId}:`,
    // The service's capacity, not the per-party limits a deployment sets (figure 9 puts those back):
    // an open loop past capacity holds more than 128 requests of the one bench party at once.
    RATE_LIMIT_PER_SECOND: '1000000',
    RATE_LIMIT_BYTES_PER_SECOND: '1000000000',
    RATE_LIMIT_CONCURRENT_PER_PARTY: '1000000',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // The webhook figures send to one subscription and receiver: the machinery's throughput, not
    // the caps that keep one party from taking every slot (docs/webhooks.md, "Fair delivery").
    WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION: '1000000',
    WEBHOOK_MAX_IN_FLIGHT_PER_ORIGIN: '1000000',
  };
  console.log(`[bench] building, then starting the stack (namespace ${namespace}, database bedrequest_bench)`);
  buildServices();
  await recreateDatabase(base, 'bedrequest_bench');
  const stack = await launchStack({
    mode: 'processes',
    isolate: false,
    env,
    ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
  });
  const receiver = new WebhookReceiver();
  // Each figure carries the run that measured it, so that with --only the figures kept from earlier
  // runs keep their own date, commit and machine.
  const run = thisRun({ root, quick, only: only ?? null });
  const previous = only && existsSync(LATEST_JSON) ? (JSON.parse(readFileSync(LATEST_JSON, 'utf8')) as Record<string, unknown>) : {};
  const results: Record<string, unknown> = { ...previous };
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idleMemory = stack.residentMemory();

    const stackEnv = stack.env;
    await admin(stackEnv, 'clinic', 'upsert', '--ik', CLINIC_ACCEPTING, '--name', 'Bench Rehaklinik A', '--departments', '2300');
    await admin(stackEnv, 'clinic', 'upsert', '--ik', CLINIC_ACCEPTING_2, '--name', 'Bench Rehaklinik B', '--departments', '2300');
    await admin(stackEnv, 'clinic', 'upsert', '--ik', CLINIC_DECLINING, '--name', 'Bench Rehaklinik C (no orthopaedics)', '--departments', '0300');
    await admin(
      stackEnv,
      'user',
      'upsert',
      '--role',
      'referrer',
      '--username',
      'bench-referrer',
      '--password',
      'bench-referrer-password',
      '--ik',
      REFERRER_IK,
      '--fhir-base',
      FHIR_BASE,
    );
    const referrer = await login(stack.gatewayUrl, 'bench-referrer', 'bench-referrer-password');
    const callbackUrl = await receiver.start();
    const subscription = await fetch(`${stack.gatewayUrl}/api/v1/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${referrer.token}` },
      body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl }),
    });
    if (!subscription.ok) console.warn(`[bench] subscription failed: ${subscription.status}`);

    const measure = async (name: string, figure: () => Promise<unknown>) => {
      try {
        results[name] = { ...((await figure()) as object), measuredAt: new Date().toISOString(), run };
      } catch (error) {
        console.error(`[bench] ${name} failed: ${error instanceof Error ? error.message : String(error)}`);
        results[name] = { failed: error instanceof Error ? error.message : String(error), measuredAt: new Date().toISOString(), run };
      }
      // Written after every figure, so an interrupted run keeps what it measured.
      writeReport(results, RESULTS);
    };
    if (wanted('cpu')) {
      console.log('[bench] 0 CPU per accepted bundle, every process of the stack');
      await measure('cpu', () =>
        cpuFigure({
          stack,
          databaseUrl: databaseUrl.toString(),
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
        { AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', AMQP_NAMESPACE: namespace, AMQP_PREFETCH: 32, AMQP_DELIVERY_LIMIT: 5 },
        { logger: pino({ level: 'warn' }), metrics: new Registry() },
      );
      try {
        await measure('webhooks', () =>
          webhookFigure({ stack, broker, receiver, referrerPartyId: referrer.partyId, count: quick ? 500 : 2_000, requests: 200, runs: 3 }),
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
          databaseUrl: databaseUrl.toString(),
          amqpUrl: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
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
          databaseUrl: databaseUrl.toString(),
          amqpUrl: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
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
        databaseUrl: databaseUrl.toString(),
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
          databaseUrl: databaseUrl.toString(),
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
          databaseUrl: databaseUrl.toString(),
          profileBase: PROFILE_BASE,
          performerIks: [CLINIC_ACCEPTING, CLINIC_ACCEPTING_2],
          runs: 3,
          count: quick ? 320 : 3_200,
          concurrency: 4,
          batchSize: 16,
        }),
      );
    }
    if (wanted('scale-out')) {
      console.log('[bench] 7a scale out and in: one notifier process against three with slow receivers');
      await measure('notifierScaleOut', () =>
        notifierScaleOutFigure({
          databaseUrl: databaseUrl.toString(),
          amqpUrl: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
          events: quick ? 600 : 2_400,
          runs: quick ? 1 : 3,
          ...(profileDir ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] } : {}),
        }),
      );
      const broker = await connectServiceBroker(
        { AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', AMQP_NAMESPACE: namespace, AMQP_PREFETCH: 64, AMQP_DELIVERY_LIMIT: 5 },
        { logger: pino({ level: 'warn' }), metrics: new Registry() },
      );
      try {
        console.log('[bench] 7b intake: hand-over from the active process to its standby, order per request');
        await measure('intakeHandOver', () =>
          intakeHandOverFigure({
            stack,
            broker,
            databaseUrl: databaseUrl.toString(),
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
    results.memoryMiB = { idle: idleMemory, afterLoad: stack.residentMemory(), heapAfterLoad: await heapOf(stack), measuredAt: new Date().toISOString(), run };
    // Last: it starts every service again (with tracing on, then off), which resets what the memory figure reads.
    if (wanted('tracing')) {
      console.log('[bench] 8 the cost of tracing: CPU per bundle with tracing off and on');
      await measure('tracing', () =>
        tracingFigure({
          stack,
          databaseUrl: databaseUrl.toString(),
          token: referrer.token,
          performerIks: [CLINIC_ACCEPTING, CLINIC_DECLINING],
          seconds: quick ? 5 : 10,
          connections: 16,
          pairs: quick ? 1 : 3,
        }),
      );
    }
  } finally {
    await receiver.stop();
    await stack.stop();
    await recreateDatabase(base, 'bedrequest_bench', true).catch(() => undefined);
    await deleteBrokerTopology(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', declareTopology(namespace)).catch(() => undefined);
  }
  const files = writeReport(results, RESULTS);
  console.log(`[bench] wrote ${files.join(' and ')}`);
}

main().catch((error: unknown) => {
  console.error(`[bench] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
