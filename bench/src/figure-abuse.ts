import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { Instance, Stack } from '@bedrequest/stack';
import type { AbuseOrder, AbuseReport } from './abuser';
import { bundleFactory } from './bundles';
import { admin, login } from './parties';
import { percentile, summarize } from './load';
import { cpuSpent, sampleCpu, type CpuSample } from './process-cpu';

const ABUSER = { username: 'bench-abuser', password: 'bench-abuser-password', ik: '262200009', fhirBase: 'https://abusing-hospital.example/fhir' };

/**
 * The limits of a deployment (apps/gateway/src/config.ts, docs/api.md "Limits"), which the bench's
 * own environment lifts: the per-party rate, its body bytes per second and its requests at once, no
 * exempt addresses.
 */
export const DEPLOYED_LIMITS = {
  RATE_LIMIT_EXEMPT_ADDRESSES: '',
  RATE_LIMIT_PER_SECOND: '200',
  RATE_LIMIT_BYTES_PER_SECOND: String(2 * 2 ** 20),
  RATE_LIMIT_CONCURRENT_PER_PARTY: '128',
};

type Answers = { status: number; ms: number }[];

/**
 * How the victim sends: one bundle after another
 * (the figure as first measured; alone it keeps both cores about 80 % busy, intake, routing, the
 * notifier, PostgreSQL and RabbitMQ working on its bundles, so any other load takes from it), and
 * one bundle 50 ms after each answer, as the fault suite's other referrer (abuse.faults.spec.ts).
 */
const VICTIM_PACES = [
  { name: 'one after another', pauseMs: 0 },
  { name: 'one every 50 ms', pauseMs: 50 },
] as const;

/**
 * Figure 9 (docs/api.md, "Errors", the limits that keep one party from slowing the others): another
 * party's POST p99 while one party abuses the service at its limits, against its p99 before. The
 * gateway runs with the limits of a deployment for it and is started again with the bench's
 * afterwards. In each of `runs`, the referrer of the other figures sends its bundles at each of
 * VICTIM_PACES, `seconds` alone, then `seconds` while the abuser (abuser.ts, a process of its own)
 * floods Task searches, posts bundles of 40,000 performers, storms the login from one address and
 * holds 200 slowloris connections.
 */
export async function abuseFigure(options: { stack: Stack; victimToken: string; performerIks: string[]; seconds: number; runs: number }) {
  const gateway = options.stack.instances().find((instance) => instance.service === 'gateway')!;
  await restart(options.stack, gateway, DEPLOYED_LIMITS);
  try {
    await admin(
      options.stack.env,
      'user',
      'upsert',
      '--role',
      'referrer',
      '--username',
      ABUSER.username,
      '--password',
      ABUSER.password,
      '--ik',
      ABUSER.ik,
      '--fhir-base',
      ABUSER.fhirBase,
    );
    const abuser = await login(options.stack.gatewayUrl, ABUSER.username, ABUSER.password);
    const bundles = bundleFactory(options.performerIks);
    const url = options.stack.gatewayUrl;
    const pids = new Map(options.stack.instances().map((instance) => [instance.name, instance.pid] as const));
    /** Each process's share of a core while the victim sent (the abuser's own is in its report). */
    const cpuShares: CpuSample[] = [];
    const victimPosts = async (until: number, pauseMs: number) => {
      const answers: { status: number; ms: number }[] = [];
      const cpuBefore = sampleCpu(pids);
      const phaseStarted = Date.now();
      while (Date.now() < until) {
        const started = performance.now();
        const status = await fetch(`${url}/api/v2/fhir/Bundle`, {
          method: 'POST',
          headers: { authorization: `Bearer ${options.victimToken}`, 'content-type': 'application/fhir+json' },
          body: bundles.next().body,
          signal: AbortSignal.timeout(5_000),
        }).then(
          (response) => response.status,
          () => 0,
        );
        answers.push({ status, ms: performance.now() - started });
        if (pauseMs) await new Promise((resolve) => setTimeout(resolve, pauseMs));
      }
      const elapsed = Date.now() - phaseStarted;
      cpuShares.push(Object.fromEntries(Object.entries(cpuSpent(cpuBefore, sampleCpu(pids))).map(([name, ms]) => [name, ms / elapsed])));
      return answers;
    };
    const phase = options.seconds * 1000;
    const p99 = (answers: Answers) =>
      percentile(
        answers.map((answer) => answer.ms),
        99,
      );
    const failed = (answers: Answers) => answers.filter((answer) => answer.status !== 202).length;
    const total = (statuses: Record<number, number>) => Object.values(statuses).reduce((sum, count) => sum + count, 0);
    const oneRun = async () => {
      cpuShares.length = 0;
      const unloaded: Answers[] = [];
      for (const pace of VICTIM_PACES) unloaded.push(await victimPosts(Date.now() + phase, pace.pauseMs));
      // The abuser prepares its bodies before `from`, so that both begin together; it abuses while
      // the victim sends at each pace in turn.
      const from = Date.now() + 1_000;
      const until = from + VICTIM_PACES.length * phase;
      const abusing = abuse({
        gatewayUrl: url,
        token: abuser.token,
        ik: ABUSER.ik,
        fhirBase: ABUSER.fhirBase,
        performerIks: options.performerIks,
        from,
        until,
      });
      await new Promise((resolve) => setTimeout(resolve, from - Date.now()));
      const loaded: Answers[] = [];
      for (const [index, pace] of VICTIM_PACES.entries()) loaded.push(await victimPosts(from + (index + 1) * phase, pace.pauseMs));
      const report = await abusing;
      // Its windows (the per-party rate, the byte budget) end before the next run's victim alone.
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      return {
        tried: { flood: total(report.flood), huge: total(report.huge), logins: total(report.logins), slow: report.slow },
        statuses: { flood: report.flood, huge: report.huge, logins: report.logins },
        hugeBundleMiB: report.hugeBundleBytes / 2 ** 20,
        abuserCpuShare: report.cpuMs / (until - from),
        victim: VICTIM_PACES.map((pace, index) => ({
          pace: pace.name,
          unloaded: { posts: unloaded[index]!.length, p99Ms: p99(unloaded[index]!), notAccepted: failed(unloaded[index]!) },
          underAbuse: { posts: loaded[index]!.length, p99Ms: p99(loaded[index]!), notAccepted: failed(loaded[index]!) },
          ratio: p99(loaded[index]!) / p99(unloaded[index]!),
          cpuShare: { unloaded: cpuShares[index]!, underAbuse: cpuShares[VICTIM_PACES.length + index]! },
        })),
      };
    };
    const runs: Awaited<ReturnType<typeof oneRun>>[] = [];
    for (let run = 0; run < options.runs; run++) runs.push(await oneRun());
    return {
      seconds: options.seconds,
      limits: DEPLOYED_LIMITS,
      runs,
      ratio: Object.fromEntries(VICTIM_PACES.map((pace, index) => [pace.name, summarize(runs.map((run) => run.victim[index]!.ratio))])),
    };
  } finally {
    await restart(options.stack, gateway, {});
  }
}

/** Runs the abuser (abuser.ts) in its own process, to its report. */
function abuse(order: AbuseOrder): Promise<AbuseReport> {
  const child = fork(join(__dirname, 'abuser.cjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (report) => resolve(report as AbuseReport));
    child.once('exit', (code) => code !== 0 && reject(new Error(`the abuser exited with ${code} before reporting`)));
    child.send(order);
  });
}

/** The gateway started again on its ports with `env` over the stack's. */
async function restart(stack: Stack, gateway: Instance, env: Record<string, string>): Promise<void> {
  const internalPort = Number(new URL(gateway.probeUrl).port);
  await stack.stopInstance(gateway.name);
  await stack.start(gateway.name, 'gateway', { port: gateway.port, internalPort, env });
}
