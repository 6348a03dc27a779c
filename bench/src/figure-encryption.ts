import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { Registry } from 'prom-client';
import { declareTopology } from '@bedrequest/contracts';
import { DataKeyring } from '@bedrequest/crypto';
import { MemoryKeyStore, kekSet, newKek } from '@bedrequest/crypto/testing';
// The bench is a test harness, not a service: the fixture Task is what it should publish.
import { fhirTask } from '@bedrequest/fhir-model/testing';
import { connectServiceBroker } from '@bedrequest/messaging';
import { bundleEntry, deleteBrokerTopology, type WebhookReceiver } from '@bedrequest/testing';
import { provisionTopology, root, type Stack } from '@bedrequest/stack';
import { deliver } from './figure-webhooks';
import { summarize } from './load';
import { cpuSpent, sampleCpu } from './process-cpu';

export type Variant = 'sealed' | 'clear';

/**
 * `measure` of both variants, `runs` times each, alternating which goes first (sealed first in
 * even runs, clear first in odd ones) so that the drift of the shared machine falls on both.
 */
export async function alternating<Measured>(runs: number, measure: (variant: Variant, run: number) => Promise<Measured>): Promise<Record<Variant, Measured[]>> {
  const measured: Record<Variant, Measured[]> = { sealed: [], clear: [] };
  for (let run = 0; run < runs; run++) {
    for (const variant of run % 2 === 0 ? (['sealed', 'clear'] as const) : (['clear', 'sealed'] as const)) measured[variant].push(await measure(variant, run));
  }
  return measured;
}

/** The configuration that makes a service seal at rest as in production: a DATA_KEK of its own. */
export function dataKek(): Record<string, string> {
  return { DATA_KEK: randomBytes(32).toString('base64'), DATA_KEK_ID: 'bench' };
}

/**
 * A test process on a schema and broker namespace of its own creates its schema (its migrations),
 * which the stack's provisioned runtime roles may not (docs/operations.md, "Provisioning"): it
 * connects as the bench's administrator instead. The namespace's topology is provisioned for it
 * first, as for every service: none declares it.
 */
export async function ownSchemaAndNamespace(options: { databaseUrl: string; amqpUrl: string }, namespace: string): Promise<Record<string, string>> {
  await provisionTopology({ AMQP_URL: options.amqpUrl, AMQP_NAMESPACE: namespace });
  return { DATABASE_URL: options.databaseUrl, AMQP_URL: options.amqpUrl, AMQP_NAMESPACE: namespace };
}

export async function dropSchema(databaseUrl: string, schema: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await client.end();
}

/**
 * Figure 3b: what sealing the webhook secrets and Tasks at rest costs the notifier. The same
 * notifier build (its test entry point) runs in its own process, once storing secrets and Tasks
 * sealed (AES-256-GCM under a configured DATA_KEK, as in production) and once storing the same
 * bytes unsealed in the same columns (NOTIFIER_TEST_STORE_IN_CLEAR): the difference is the
 * cryptography alone. Each run starts a fresh process on a fresh schema and broker namespace, the
 * variants alternate (sealed first in even runs, clear first in odd ones) so that the machine's
 * drift falls on both; per run, deliveries per second as in figure 3 and the CPU the notifier
 * process and PostgreSQL spent per event.
 */
export async function encryptionFigure(options: {
  stack: Stack;
  databaseUrl: string;
  amqpUrl: string;
  namespace: string;
  receiver: WebhookReceiver;
  referrer: { token: string; partyId: string };
  count: number;
  requests: number;
  runs: number;
}) {
  // Bundled here rather than with @bedrequest/testing's bundleScript, which finds the workspace from its own source path.
  const outdir = join(root, 'tmp', 'bench');
  mkdirSync(outdir, { recursive: true });
  const entry = join(outdir, 'notifier-process.cjs');
  bundleEntry(root, { entryPoints: [join(root, 'apps', 'notifier', 'src', 'testing', 'notifier-process.ts')], outfile: entry });
  const measured = await alternating(options.runs, (variant, run) => measureOnce(options, entry, variant, run));
  const of = (variant: Variant, value: (run: Awaited<ReturnType<typeof measureOnce>>) => number) => summarize(measured[variant].map(value));
  const sealed = of('sealed', (run) => run.perSecond);
  const clear = of('clear', (run) => run.perSecond);
  const cryptography = await cryptographyPerEvent();
  const cpuSealed = of('sealed', (run) => run.notifierCpuMsPerEvent);
  const cpuClear = of('clear', (run) => run.notifierCpuMsPerEvent);
  return {
    eventsPerRun: options.count,
    distinctRequests: options.requests,
    sealedPerSecond: sealed,
    clearPerSecond: clear,
    ratioSealedToClear: sealed.median / clear.median,
    notifierCpuMsPerEvent: { sealed: cpuSealed, clear: cpuClear },
    postgresCpuMsPerEvent: { sealed: of('sealed', (run) => run.postgresCpuMsPerEvent), clear: of('clear', (run) => run.postgresCpuMsPerEvent) },
    notifierCpuRatioSealedToClear: cpuSealed.median / cpuClear.median,
    cryptographyMicrosecondsPerEvent: cryptography,
  };
}

/**
 * The cryptography of one event alone, in this process: sealing its Task when it is stored,
 * opening it when a claim reads it back, and opening the subscription's secret to sign it (the
 * most an event costs: a hand-over opens no Task, and opened secrets are kept). CPU microseconds
 * per event (process.cpuUsage, so that other processes on the machine do not count), median of 5
 * rounds of 5,000 after a warm-up; the bench's Task (about 0.7 kB of JSON).
 */
async function cryptographyPerEvent(): Promise<{ median: number; min: number; max: number; runs: number[] }> {
  const { keyring } = await DataKeyring.load({ keks: kekSet(newKek('bench')), store: new MemoryKeyStore() });
  const task = fhirTask({ businessStatus: 'declined' });
  const secret = keyring.seal(`whsec_${randomBytes(32).toString('base64')}`, 'subscription:secret:bench');
  const event = async (n: number) => {
    const context = `delivery:data:${n}`;
    await keyring.openJson(keyring.sealJson(task, context), context);
    await keyring.openText(secret, 'subscription:secret:bench');
  };
  for (let n = 0; n < 2_000; n++) await event(n);
  const rounds: number[] = [];
  for (let round = 0; round < 5; round++) {
    const started = process.cpuUsage();
    for (let n = 0; n < 5_000; n++) await event(n);
    const spent = process.cpuUsage(started);
    rounds.push((spent.user + spent.system) / 5_000);
  }
  return summarize(rounds);
}

async function measureOnce(options: Parameters<typeof encryptionFigure>[0], entry: string, variant: Variant, run: number) {
  const namespace = `${options.namespace}-enc-${variant}-${run}`;
  const schema = `bench_notifier_${variant}_${run}`;
  const instance = `notifier-${variant}`;
  const service = await options.stack.start(instance, 'notifier', {
    env: {
      ...(await ownSchemaAndNamespace(options, namespace)),
      NOTIFIER_DB_SCHEMA: schema,
      NOTIFIER_TEST_MIGRATIONS_DIR: join(root, 'apps', 'notifier', 'prisma', 'migrations'),
      ...(variant === 'sealed' ? dataKek() : { NOTIFIER_TEST_STORE_IN_CLEAR: 'true' }),
    },
    entry,
  });
  const broker = await connectServiceBroker(
    { AMQP_URL: options.amqpUrl, AMQP_NAMESPACE: namespace, AMQP_PREFETCH: 32, AMQP_DELIVERY_LIMIT: 5 },
    { logger: pino({ level: 'warn' }), metrics: new Registry() },
  );
  try {
    const subscription = await fetch(`${service.url}/internal/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.referrer.token}` },
      body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl: options.receiver.url }),
    });
    if (subscription.status !== 201) throw new Error(`subscribing to the ${variant} notifier answered ${subscription.status}`);
    options.receiver.secret = ((await subscription.json()) as { secret: string }).secret;
    const processes = new Map([['notifier', service.pid]]);
    const before = sampleCpu(processes);
    const perSecond = await deliver({
      broker,
      receiver: options.receiver,
      referrerPartyId: options.referrer.partyId,
      count: options.count,
      requests: options.requests,
    });
    const spent = cpuSpent(before, sampleCpu(processes));
    const unverified = options.receiver.received.filter((webhook) => !webhook.verified).length;
    if (unverified > 0) throw new Error(`${unverified} webhooks of the ${variant} notifier did not verify`);
    return { perSecond, notifierCpuMsPerEvent: spent.notifier! / options.count, postgresCpuMsPerEvent: spent.postgresql! / options.count };
  } finally {
    await broker.stop();
    await options.stack.stopInstance(instance);
    await deleteBrokerTopology(options.amqpUrl, declareTopology(namespace)).catch(() => undefined);
    await dropSchema(options.databaseUrl, schema);
  }
}
