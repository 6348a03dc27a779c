import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AdmissionBundleSubmittedV1, IntakeVerdictV1 } from '@bedrequest/contracts';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { admissionRequestSummary, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import type { Broker } from '@bedrequest/messaging';
import { launchStack, type Stack } from '@bedrequest/stack';
import { NotifierFleet, type FleetRun, type StoppedInstance } from '../../apps/notifier/src/testing/notifier-fleet';
import { FHIR_BASE, REFERRER_IK, bundleFactory } from './bundles';
import { summarize } from './load';
import { cpuSpent, sampleCpu } from './process-cpu';

/** What issue 25 asks of three notifier processes against one. */
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

/** A request's three bundles, as a referrer sends them: new, then a supplement, then its revocation. */
interface RequestFlow {
  identifier: string;
  submissions: AdmissionBundleSubmittedV1[];
}

/** How long a bundle may wait for its verdict before it counts as answered by nobody. */
const VERDICT_TIMEOUT_MS = 60_000;

/**
 * Figure 7b: intake processes scaled out, competing for `<ns>.intake`. What the gateway sends
 * (bundles with the summary it read) is published straight to intake's queue, as in figure 3c, with
 * one intake process (the stack's) and with two (a second one started beside it, stopped with
 * SIGTERM afterwards), alternating over the runs:
 *
 * - throughput: `count` new requests, `inFlight` awaiting their verdicts at a time;
 * - order, as a referrer sends: every request's three bundles (new, supplement, revocation), each
 *   sent once the verdict of the one before came (the 202 the gateway answers from it), `inFlight`
 *   requests at a time. Every verdict must be `accepted`, and the stored versions must carry the
 *   bundles in the order they were sent;
 * - order, pipelined: the three bundles of each request sent back to back without waiting for a
 *   verdict (what happens when the gateway answered 202 without one because intake was slow, and
 *   the referrer went on): how many requests were applied out of order.
 */
export async function intakeScaleOutFigure(options: {
  stack: Stack;
  broker: Broker;
  databaseUrl: string;
  referrerPartyId: string;
  profileBase: string;
  performerIks: string[];
  count: number;
  flows: number;
  inFlight: number;
  runs: number;
}) {
  const kinds = { one: [] as IntakeRun[], two: [] as IntakeRun[] };
  const database = new Client({ connectionString: options.databaseUrl });
  await database.connect();
  try {
    for (let run = 0; run < options.runs; run++) {
      kinds.one.push(await measureIntakes(options, database));
      await options.stack.start('intake-2', 'intake');
      try {
        kinds.two.push(await measureIntakes(options, database));
      } finally {
        await options.stack.stopInstance('intake-2');
      }
    }
  } finally {
    await database.end();
  }
  const of = (kind: 'one' | 'two', value: (run: IntakeRun) => number) => summarize(kinds[kind].map(value));
  const perSecond = { one: of('one', (run) => run.newPerSecond), two: of('two', (run) => run.newPerSecond) };
  const total = (kind: 'one' | 'two', value: (run: IntakeRun) => number) => kinds[kind].reduce((sum, run) => sum + value(run), 0);
  return {
    newRequestsPerRun: options.count,
    requestsInOrderChecks: options.flows,
    inFlight: options.inFlight,
    oneIntakePerSecond: perSecond.one,
    twoIntakesPerSecond: perSecond.two,
    ratioTwoToOne: perSecond.two.median / perSecond.one.median,
    cpuMsPerBundle: { one: of('one', (run) => run.cpuMsPerBundle), two: of('two', (run) => run.cpuMsPerBundle) },
    sequential: {
      requests: options.flows * options.runs,
      outOfOrder: { one: total('one', (run) => run.sequential.outOfOrder), two: total('two', (run) => run.sequential.outOfOrder) },
      notAccepted: { one: total('one', (run) => run.sequential.notAccepted), two: total('two', (run) => run.sequential.notAccepted) },
    },
    pipelined: {
      requests: options.flows * options.runs,
      outOfOrder: { one: total('one', (run) => run.pipelined.outOfOrder), two: total('two', (run) => run.pipelined.outOfOrder) },
      notAccepted: { one: total('one', (run) => run.pipelined.notAccepted), two: total('two', (run) => run.pipelined.notAccepted) },
    },
  };
}

interface OrderCheck {
  /** Requests whose stored versions do not carry their bundles in the order they were sent. */
  outOfOrder: number;
  /** Requests with a bundle that was not accepted (refused as a conflict, or no verdict). */
  notAccepted: number;
}

interface IntakeRun {
  newPerSecond: number;
  cpuMsPerBundle: number;
  sequential: OrderCheck;
  pipelined: OrderCheck;
}

async function measureIntakes(options: Parameters<typeof intakeScaleOutFigure>[0], database: Client): Promise<IntakeRun> {
  const intakes = new Map(options.stack.instances().flatMap((instance) => (instance.service === 'intake' ? [[instance.name, instance.pid] as const] : [])));
  const factory = submissionFactory(options);
  const fresh = Array.from({ length: options.count }, () => factory.flow().submissions[0]!);
  const before = sampleCpu(intakes);
  const started = performance.now();
  let next = 0;
  const refused: string[] = [];
  await Promise.all(
    Array.from({ length: options.inFlight }, async () => {
      while (next < fresh.length) {
        const outcome = await verdictOf(options.broker, fresh[next++]!);
        if (outcome !== 'accepted') refused.push(outcome);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const spent = cpuSpent(before, sampleCpu(intakes));
  if (refused.length > 0) throw new Error(`${refused.length} new requests were not accepted, e.g. ${refused[0]}`);
  const intakeCpu = [...intakes.keys()].reduce((sum, name) => sum + spent[name]!, 0);

  const sequential = Array.from({ length: options.flows }, () => factory.flow());
  let nextFlow = 0;
  const sequentialVerdicts = new Map<string, string[]>();
  await Promise.all(
    Array.from({ length: options.inFlight }, async () => {
      while (nextFlow < sequential.length) {
        const flow = sequential[nextFlow++]!;
        const verdicts: string[] = [];
        for (const submission of flow.submissions) verdicts.push(await verdictOf(options.broker, submission, flow));
        sequentialVerdicts.set(flow.identifier, verdicts);
      }
    }),
  );

  const pipelined = Array.from({ length: options.flows }, () => factory.flow());
  const pipelinedVerdicts = new Map<string, string[]>();
  await Promise.all(
    pipelined.map(async (flow) => {
      // Published in this order on the one channel (amqplib writes in call order), answered whenever.
      pipelinedVerdicts.set(flow.identifier, await Promise.all(flow.submissions.map((submission) => verdictOf(options.broker, submission, flow))));
    }),
  );
  return {
    newPerSecond: options.count / seconds,
    cpuMsPerBundle: (intakeCpu + spent.postgresql!) / options.count,
    sequential: await orderOf(database, sequential, sequentialVerdicts),
    pipelined: await orderOf(database, pipelined, pipelinedVerdicts),
  };
}

/** The message ids of each flow's bundles, in the order they were sent: set before publishing. */
const messageIds = new WeakMap<AdmissionBundleSubmittedV1, string>();

/** Publishes a bundle with a message id of its own (kept in `messageIds`) and resolves with intake's verdict. */
async function verdictOf(broker: Broker, submission: AdmissionBundleSubmittedV1, flow?: RequestFlow): Promise<string> {
  const id = randomUUID();
  messageIds.set(submission, id);
  const { reply } = await broker.publishAndAwaitReply(
    AdmissionBundleSubmittedV1,
    submission,
    { correlationId: `bench-scale-${flow ? 'order' : 'new'}`, id },
    VERDICT_TIMEOUT_MS,
  );
  const verdict = reply && IntakeVerdictV1.payload.parse(reply.payload);
  return verdict ? (verdict.outcome === 'rejected' ? `rejected ${verdict.refusal}` : verdict.outcome) : 'no verdict';
}

/** Compares each flow's stored versions (their message ids, by version) with the order its bundles were sent in. */
async function orderOf(database: Client, flows: readonly RequestFlow[], verdicts: ReadonlyMap<string, string[]>): Promise<OrderCheck> {
  const { rows } = await database.query<{ identifier: string; message_ids: string[] }>(
    `SELECT r.identifier, array_agg(v.message_id::text ORDER BY v.version) AS message_ids
       FROM intake.admission_request r JOIN intake.request_version v ON v.request_id = r.id
      WHERE r.identifier = ANY($1::text[]) GROUP BY r.identifier`,
    [flows.map((flow) => flow.identifier)],
  );
  const stored = new Map(rows.map((row) => [row.identifier, row.message_ids] as const));
  let outOfOrder = 0;
  let notAccepted = 0;
  for (const flow of flows) {
    const sent = flow.submissions.map((submission) => messageIds.get(submission)!);
    const versions = stored.get(flow.identifier) ?? [];
    if (versions.join() !== sent.join()) outOfOrder += 1;
    if (!(verdicts.get(flow.identifier) ?? []).every((verdict) => verdict === 'accepted')) notAccepted += 1;
  }
  return { outOfOrder, notAccepted };
}

/** Bundles as the gateway sends them, with the summary it read (validated here once per kind; only the identifier differs). */
function submissionFactory(options: { referrerPartyId: string; profileBase: string; performerIks: string[] }) {
  const submitter = { partyId: options.referrerPartyId, ikNumbers: [REFERRER_IK], fhirBase: FHIR_BASE };
  const bundles = bundleFactory(options.performerIks);
  const placeholder = '00000000-0000-4000-8000-00000000cafe';
  const revocation = JSON.stringify(
    admissionRequestBundle({
      fhirBase: FHIR_BASE,
      requesterIk: REFERRER_IK,
      performerIks: options.performerIks,
      requestIdentifier: `${FHIR_BASE}/ServiceRequest/${placeholder}`,
      status: 'revoked',
    }),
  );
  const summaryOf = (body: string) => {
    const validated = validateAdmissionRequestBundle(JSON.parse(body), { profileBase: options.profileBase });
    if (!validated.ok) throw new Error(`the bench's bundle is invalid: ${validated.issues.map((issue) => issue.diagnostics).join('; ')}`);
    return admissionRequestSummary(validated.bundle);
  };
  const sample = bundles.next();
  const summaries = { new: summaryOf(sample.body), supplement: summaryOf(sample.supplement()), revocation: summaryOf(revocation) };
  const submission = (summary: typeof summaries.new, identifier: string, body: string): AdmissionBundleSubmittedV1 => ({
    submitter,
    receivedAt: new Date().toISOString(),
    bundle: JSON.parse(body) as Record<string, unknown>,
    request: { ...summary, identifier },
  });
  return {
    flow(): RequestFlow {
      const bundle = bundles.next();
      const id = bundle.identifier.slice(bundle.identifier.lastIndexOf('/') + 1);
      return {
        identifier: bundle.identifier,
        submissions: [
          submission(summaries.new, bundle.identifier, bundle.body),
          submission(summaries.supplement, bundle.identifier, bundle.supplement()),
          submission(summaries.revocation, bundle.identifier, revocation.replaceAll(placeholder, id)),
        ],
      };
    },
  };
}
