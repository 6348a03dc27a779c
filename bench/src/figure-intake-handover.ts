import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AdmissionBundleSubmittedV1, IntakeVerdictV1 } from '@bedrequest/contracts';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { admissionRequestSummary, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import type { Broker } from '@bedrequest/messaging';
import type { Stack } from '@bedrequest/stack';
import { FHIR_BASE, REFERRER_IK, bundleFactory } from './bundles';
import { summarize } from './load';

/** A request's three bundles, as a referrer sends them: new, then a supplement, then its revocation. */
interface RequestFlow {
  identifier: string;
  submissions: AdmissionBundleSubmittedV1[];
}

/** How long a bundle may wait for its verdict before it counts as answered by nobody. */
const VERDICT_TIMEOUT_MS = 60_000;

interface Phase {
  /** Requests whose stored versions do not carry their bundles in the order they were sent. */
  outOfOrder: number;
  /** Requests with a bundle that was not accepted (refused as a conflict, or no verdict). */
  notAccepted: number;
  /** The longest time between two verdicts, from the first to the last: a hand-over shows here. */
  longestGapMs: number;
  /** With a hand-over: SIGTERM until the stopped process had exited, and verdicts after that (the standby's). */
  stopMs?: number;
  verdictsAfterExit?: number;
}

/**
 * Figure 7b: intake's queue has a single active consumer (docs/architecture.md, "Scaling"), so a
 * second intake process stands by rather than sharing the load; what matters is that a request's
 * bundles stay in order when the active process goes. Each run, `flows` requests per phase, their
 * three bundles (new, supplement, revocation) published back to back straight to intake's queue
 * (what the gateway passes on when a referrer does not wait for verdicts), as in figure 3c:
 *
 * - the stack's intake alone (no hand-over);
 * - a second intake started, and the active one (the stack's) stopped with SIGTERM once a third of
 *   the verdicts came, so the standby takes over mid-run;
 * - the stopped one started again (now the standby), and the active one stopped the same way.
 *
 * Every verdict must be `accepted`, and the stored versions must carry the bundles in the order sent.
 */
export async function intakeHandOverFigure(options: {
  stack: Stack;
  broker: Broker;
  databaseUrl: string;
  referrerPartyId: string;
  profileBase: string;
  performerIks: string[];
  flows: number;
  runs: number;
}) {
  const alone: Phase[] = [];
  const handedOver: Phase[] = [];
  const factory = submissionFactory(options);
  const database = new Client({ connectionString: options.databaseUrl });
  await database.connect();
  const phase = (stop?: string) => pipelined(options, database, factory, stop);
  try {
    for (let run = 0; run < options.runs; run++) {
      console.log(`[bench]   run ${run + 1}: one intake, then a hand-over to a standby and back (SIGTERM)`);
      alone.push(await phase());
      await options.stack.start('intake-2', 'intake');
      handedOver.push(await phase('intake'));
      await options.stack.restart('intake');
      handedOver.push(await phase('intake-2'));
    }
  } finally {
    await database.end();
    if (!options.stack.isRunning('intake')) await options.stack.restart('intake');
    await options.stack.stopInstance('intake-2');
  }
  const total = (phases: Phase[], value: (phase: Phase) => number) => phases.reduce((sum, phase) => sum + value(phase), 0);
  const of = (phases: Phase[]) => ({
    requests: options.flows * phases.length,
    outOfOrder: total(phases, (phase) => phase.outOfOrder),
    notAccepted: total(phases, (phase) => phase.notAccepted),
    longestGapMs: summarize(phases.map((phase) => phase.longestGapMs)),
  });
  return {
    requestsPerPhase: options.flows,
    alone: of(alone),
    handOver: {
      ...of(handedOver),
      stopMs: summarize(handedOver.map((phase) => phase.stopMs!)),
      verdictsAfterExit: handedOver.map((phase) => phase.verdictsAfterExit!),
    },
    /** Requests out of order or not accepted, in all phases: none may be. */
    target: 0,
  };
}

/** Publishes every flow's bundles back to back; with `stop`, that instance gets SIGTERM once a third of the verdicts came. */
async function pipelined(
  options: { stack: Stack; broker: Broker; flows: number },
  database: Client,
  factory: ReturnType<typeof submissionFactory>,
  stop?: string,
): Promise<Phase> {
  const flows = Array.from({ length: options.flows }, () => factory.flow());
  const verdictTimes: number[] = [];
  let stopping: Promise<{ stopMs: number; exitedAt: number }> | undefined;
  const answered = () => {
    verdictTimes.push(performance.now());
    if (stop && !stopping && verdictTimes.length >= flows.length) {
      const signalled = performance.now();
      stopping = options.stack.stopInstance(stop).then(() => ({ stopMs: performance.now() - signalled, exitedAt: performance.now() }));
    }
  };
  const verdicts = new Map<string, string[]>();
  await Promise.all(
    flows.map(async (flow) => {
      // Published in this order on the one channel (amqplib writes in call order), answered whenever.
      verdicts.set(flow.identifier, await Promise.all(flow.submissions.map((submission) => verdictOf(options.broker, submission).finally(answered))));
    }),
  );
  const stopped = await stopping;
  if (stop && !stopped) throw new Error(`${stop} was not stopped: fewer than a third of the verdicts came`);
  const gaps = verdictTimes.slice(1).map((time, index) => time - verdictTimes[index]!);
  return {
    ...(await orderOf(database, flows, verdicts)),
    longestGapMs: Math.round(Math.max(0, ...gaps)),
    ...(stopped ? { stopMs: Math.round(stopped.stopMs), verdictsAfterExit: verdictTimes.filter((time) => time > stopped.exitedAt).length } : {}),
  };
}

/** The message ids of each flow's bundles, in the order they were sent: set before publishing. */
const messageIds = new WeakMap<AdmissionBundleSubmittedV1, string>();

/** Publishes a bundle with a message id of its own (kept in `messageIds`) and resolves with intake's verdict. */
async function verdictOf(broker: Broker, submission: AdmissionBundleSubmittedV1): Promise<string> {
  const id = randomUUID();
  messageIds.set(submission, id);
  const { reply } = await broker.publishAndAwaitReply(AdmissionBundleSubmittedV1, submission, { correlationId: 'bench-hand-over', id }, VERDICT_TIMEOUT_MS);
  const verdict = reply && IntakeVerdictV1.payload.parse(reply.payload);
  return verdict ? (verdict.outcome === 'rejected' ? `rejected ${verdict.refusal}` : verdict.outcome) : 'no verdict';
}

/** Compares each flow's stored versions (their message ids, by version) with the order its bundles were sent in. */
async function orderOf(database: Client, flows: readonly RequestFlow[], verdicts: ReadonlyMap<string, string[]>) {
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
    if ((stored.get(flow.identifier) ?? []).join() !== sent.join()) outOfOrder += 1;
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
