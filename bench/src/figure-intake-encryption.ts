import { cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import pino from 'pino';
import { Registry } from 'prom-client';
import { AdmissionBundleSubmittedV1, IntakeVerdictV1, declareTopology } from '@bedrequest/contracts';
import { DataKeyring } from '@bedrequest/crypto';
import { MemoryKeyStore, kekSet, newKek } from '@bedrequest/crypto/testing';
import { admissionRequestSummary, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { connectServiceBroker, type Broker } from '@bedrequest/messaging';
import { bundleEntry, deleteBrokerTopology } from '@bedrequest/testing';
import { bundleSummaryOf } from '../../apps/intake/src/clinic-tasks/bundle-summary';
import { root, type Stack } from '@bedrequest/stack';
import { FHIR_BASE, REFERRER_IK, bundleFactory } from './bundles';
import { alternating, dataKek, dropSchema, ownSchemaAndNamespace, type Variant } from './figure-encryption';
import { summarize } from './load';
import { cpuSpent, sampleCpu } from './process-cpu';

type Submission = AdmissionBundleSubmittedV1;
/** The two phases of a run: every request new, then every one of them supplemented. */
const PHASES = ['new', 'supplement'] as const;
type Phase = (typeof PHASES)[number];

/** New requests and supplements sent to a fresh process before it is measured. */
const WARM_UP = 300;
/** How long a bundle may wait for its verdict before the run fails (a verdict takes milliseconds). */
const VERDICT_TIMEOUT_MS = 60_000;

/**
 * Figure 3c: what sealing its data at rest costs intake. The same intake build (its test entry
 * point) runs in its own process, once sealing bundles, summaries and verdicts (AES-256-GCM under a
 * configured DATA_KEK, as in production) and once storing the same bytes unsealed in the same
 * columns (INTAKE_TEST_STORE_IN_CLEAR): the difference is the cryptography, and that PostgreSQL
 * compresses unsealed values as it stores them (TOAST) and gains nothing on sealed ones. The bench sends
 * what the gateway sends, AdmissionBundleSubmittedV1 with the summary it read, straight to intake's
 * queue, `inFlight` at a time, each awaiting intake's verdict as the gateway does: first `count`
 * new requests, then a supplement of each (the same request with a note added, a new version),
 * after a warm-up of both phases that is not measured.
 * A phase's throughput is bundles per second until the last verdict; its CPU (intake's process and
 * PostgreSQL, from /proc) is read once intake's outbox is empty too, so that it includes relaying
 * the dispatches the bundles caused. Each run starts a fresh process on a fresh schema and broker
 * namespace; the variants alternate so that the machine's drift falls on both.
 */
export async function intakeEncryptionFigure(options: {
  stack: Stack;
  databaseUrl: string;
  amqpUrl: string;
  namespace: string;
  referrerPartyId: string;
  profileBase: string;
  performerIks: string[];
  count: number;
  inFlight: number;
  runs: number;
}) {
  const entry = bundleIntakeProcess();
  const measured = await alternating(options.runs, (variant, run) => measureOnce(options, entry, variant, run));
  const of = (variant: Variant, phase: Phase, value: (phase: PhaseMeasure) => number) => summarize(measured[variant].map((run) => value(run[phase])));
  const figure = (phase: Phase) => {
    const perSecond = { sealed: of('sealed', phase, (run) => run.perSecond), clear: of('clear', phase, (run) => run.perSecond) };
    const intakeCpuMs = { sealed: of('sealed', phase, (run) => run.intakeCpuMsPerBundle), clear: of('clear', phase, (run) => run.intakeCpuMsPerBundle) };
    return {
      perSecond,
      intakeCpuMsPerBundle: intakeCpuMs,
      postgresCpuMsPerBundle: {
        sealed: of('sealed', phase, (run) => run.postgresCpuMsPerBundle),
        clear: of('clear', phase, (run) => run.postgresCpuMsPerBundle),
      },
      ratioSealedToClear: perSecond.sealed.median / perSecond.clear.median,
      intakeCpuRatioSealedToClear: intakeCpuMs.sealed.median / intakeCpuMs.clear.median,
    };
  };
  return {
    bundlesPerPhase: options.count,
    warmUpPerPhase: WARM_UP,
    inFlight: options.inFlight,
    newRequests: figure('new'),
    supplements: figure('supplement'),
    storedBundleBytes: {
      sealed: summarize(measured.sealed.map((run) => run.storedBundleBytes)),
      clear: summarize(measured.clear.map((run) => run.storedBundleBytes)),
    },
    cryptographyMicrosecondsPerBundle: await cryptographyPerBundle(submissionsOf(options, 1).new[0]!),
  };
}

/**
 * intake's test entry point bundled into tmp/bench/intake, with intake's migrations beside it as
 * the build puts them in dist (intake looks for them next to its bundle).
 */
function bundleIntakeProcess(): string {
  const outdir = join(root, 'tmp', 'bench', 'intake');
  mkdirSync(outdir, { recursive: true });
  cpSync(join(root, 'apps', 'intake', 'prisma', 'migrations'), join(outdir, 'prisma', 'migrations'), { recursive: true });
  const entry = join(outdir, 'intake-process.cjs');
  bundleEntry(root, { entryPoints: [join(root, 'apps', 'intake', 'src', 'testing', 'intake-process.ts')], outfile: entry });
  return entry;
}

interface PhaseMeasure {
  perSecond: number;
  intakeCpuMsPerBundle: number;
  postgresCpuMsPerBundle: number;
}

async function measureOnce(
  options: Parameters<typeof intakeEncryptionFigure>[0],
  entry: string,
  variant: Variant,
  run: number,
): Promise<Record<Phase, PhaseMeasure> & { storedBundleBytes: number }> {
  const namespace = `${options.namespace}-intake-${variant}-${run}`;
  const schema = `bench_intake_${variant}_${run}`;
  const instance = `intake-${variant}`;
  const submissions = submissionsOf(options, options.count);
  // A fresh process compiles its hot paths during the first bundles: a round of each phase first, not measured.
  const warmUp = submissionsOf(options, WARM_UP);
  // Both variants are configured alike; only the switch differs.
  const service = await options.stack.start(instance, 'intake', {
    env: {
      ...(await ownSchemaAndNamespace(options, namespace)),
      INTAKE_DB_SCHEMA: schema,
      ...dataKek(),
      ...(variant === 'clear' ? { INTAKE_TEST_STORE_IN_CLEAR: 'true' } : {}),
    },
    entry,
  });
  let broker: Broker | undefined;
  const database = new Client({ connectionString: options.databaseUrl });
  try {
    broker = await connectServiceBroker(
      { AMQP_URL: options.amqpUrl, AMQP_NAMESPACE: namespace, AMQP_PREFETCH: 64, AMQP_DELIVERY_LIMIT: 5 },
      { logger: pino({ level: 'warn' }), metrics: new Registry() },
    );
    await database.connect();
    const processes = new Map([['intake', service.pid]]);
    for (const phase of PHASES) await submitAll(broker, warmUp[phase], options.inFlight);
    await outboxDrained(database, schema);
    const measured = {} as Record<Phase, PhaseMeasure>;
    for (const phase of PHASES) {
      const before = sampleCpu(processes);
      const seconds = await submitAll(broker, submissions[phase], options.inFlight);
      await outboxDrained(database, schema);
      const spent = cpuSpent(before, sampleCpu(processes));
      measured[phase] = {
        perSecond: options.count / seconds,
        intakeCpuMsPerBundle: spent.intake! / options.count,
        postgresCpuMsPerBundle: spent.postgresql! / options.count,
      };
    }
    await expectStored(database, schema, variant);
    return { ...measured, storedBundleBytes: await storedBundleBytes(database, schema) };
  } finally {
    await database.end().catch(() => undefined);
    await broker?.stop();
    await options.stack.stopInstance(instance);
    await deleteBrokerTopology(options.amqpUrl, declareTopology(namespace)).catch(() => undefined);
    await dropSchema(options.databaseUrl, schema);
  }
}

/**
 * `count` new requests and a supplement of each, as the gateway sends them: the bundle with the
 * summary the gateway read when it validated it (validated here once; only the identifier differs).
 */
function submissionsOf(options: { referrerPartyId: string; profileBase: string; performerIks: string[] }, count: number): Record<Phase, Submission[]> {
  const bundles = bundleFactory(options.performerIks);
  const submitter = { partyId: options.referrerPartyId, ikNumbers: [REFERRER_IK], fhirBase: FHIR_BASE };
  const created = Array.from({ length: count }, () => bundles.next());
  const validated = validateAdmissionRequestBundle(JSON.parse(created[0]!.body), { profileBase: options.profileBase });
  if (!validated.ok) throw new Error(`the bench's bundle is invalid: ${validated.issues.map((issue) => issue.diagnostics).join('; ')}`);
  const summary = admissionRequestSummary(validated.bundle);
  const submission = (identifier: string, body: string): Submission => ({
    submitter,
    receivedAt: new Date().toISOString(),
    bundle: JSON.parse(body) as Record<string, unknown>,
    request: { ...summary, identifier },
  });
  return {
    new: created.map((bundle) => submission(bundle.identifier, bundle.body)),
    supplement: created.map((bundle) => submission(bundle.identifier, bundle.supplement())),
  };
}

/** Sends every submission, `inFlight` awaiting their verdicts at a time; seconds until the last verdict. Each must be accepted. */
async function submitAll(broker: Broker, submissions: readonly Submission[], inFlight: number): Promise<number> {
  let next = 0;
  const refused: string[] = [];
  const started = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < submissions.length) {
        const { reply } = await broker.publishAndAwaitReply(
          AdmissionBundleSubmittedV1,
          submissions[next++]!,
          { correlationId: 'bench-intake' },
          VERDICT_TIMEOUT_MS,
        );
        const verdict = reply && IntakeVerdictV1.payload.parse(reply.payload);
        if (verdict?.outcome !== 'accepted') {
          refused.push(
            verdict
              ? `${verdict.outcome} ${'refusal' in verdict ? verdict.refusal : ''} ${verdict.issues.map((issue) => issue.diagnostics).join('; ')}`
              : 'no verdict',
          );
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (refused.length > 0) throw new Error(`${refused.length} bundles were not accepted, e.g. ${refused[0]}`);
  return seconds;
}

async function outboxDrained(client: Client, schema: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const { rows } = await client.query<{ pending: number }>(`SELECT count(*)::int AS pending FROM "${schema}".outbox_message`);
    if (rows[0]!.pending === 0) return;
    if (Date.now() > deadline) throw new Error(`intake's outbox still held ${rows[0]!.pending} messages after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The variant took effect: a stored bundle is its JSON when unsealed, and not when sealed. */
async function expectStored(client: Client, schema: string, variant: Variant): Promise<void> {
  const { rows } = await client.query<{ stored: Buffer }>(
    `SELECT sealed_bundle AS stored FROM "${schema}".request_version WHERE sealed_bundle IS NOT NULL LIMIT 1`,
  );
  const stored = rows[0]?.stored;
  const clear = stored !== undefined && stored.toString('utf8').startsWith('{"resourceType":"Bundle"');
  if (!stored || clear !== (variant === 'clear')) {
    throw new Error(`the ${variant} intake stored its bundles ${stored ? (clear ? 'unsealed' : 'sealed') : 'nowhere'}`);
  }
}

/**
 * Bytes a bundle version takes in its column, as stored (pg_column_size: after TOAST compression,
 * which shrinks JSON and gains nothing on ciphertext).
 */
async function storedBundleBytes(client: Client, schema: string): Promise<number> {
  const { rows } = await client.query<{ bytes: number }>(`SELECT avg(pg_column_size(sealed_bundle))::float8 AS bytes FROM "${schema}".request_version`);
  return rows[0]!.bytes;
}

/**
 * The cryptography of one accepted bundle alone, in this process: sealing the bundle, its list
 * summary and intake's verdict, the values intake seals for a new request or a supplement (the
 * bench's bundle, about 6 kB of JSON). Their JSON text is made beforehand, since the unsealed
 * variant makes it too. CPU microseconds per bundle (process.cpuUsage, so that other processes on
 * the machine do not count), median of 9 rounds of 2,000 after a warm-up.
 */
async function cryptographyPerBundle(submission: Submission) {
  const { keyring } = await DataKeyring.load({ keks: kekSet(newKek('bench')), store: new MemoryKeyStore() });
  const requestIdentifier = submission.request!.identifier;
  const values = [submission.bundle, bundleSummaryOf(submission.bundle), { status: 202, outcome: 'accepted', issues: [], requestIdentifier }].map((value) =>
    JSON.stringify(value),
  );
  const bundle = (n: number) => {
    for (const [index, text] of values.entries()) keyring.seal(text, `bench:${index}:${n}`);
  };
  for (let n = 0; n < 1_000; n++) bundle(n);
  const rounds: number[] = [];
  for (let round = 0; round < 9; round++) {
    const started = process.cpuUsage();
    for (let n = 0; n < 2_000; n++) bundle(n);
    const spent = process.cpuUsage(started);
    rounds.push((spent.user + spent.system) / 2_000);
  }
  return summarize(rounds);
}
