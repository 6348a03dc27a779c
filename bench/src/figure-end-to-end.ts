import { Agent, request } from 'undici';
import { requestOf, type WebhookReceiver } from '@bedrequest/testing';
import type { Stack } from '@bedrequest/stack';
import { bundleFactory } from './bundles';
import { openLoop, percentile } from './load';
import { cpuSpent, sampleCpu } from './process-cpu';
import { complete } from './report-format';

interface RateResult {
  ratePerSecond: number;
  seconds: number;
  sent: number;
  accepted: number;
  /** The answers other than 202, by status (`no answer`: the request failed). */
  notAccepted: Record<string, number>;
  arrived: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** CPU milliseconds per request of each process of the stack, from sending until the webhooks arrived. */
  cpuMsPerRequest: Record<string, number>;
}

/** POSTs new requests at a fixed rate and times each from sending to its first webhook arriving. */
async function atRate(options: {
  stack: Stack;
  gatewayUrl: string;
  token: string;
  performerIks: string[];
  receiver: WebhookReceiver;
  ratePerSecond: number;
  seconds: number;
  graceMs: number;
}): Promise<RateResult> {
  const bundles = bundleFactory(options.performerIks);
  const pids = new Map(options.stack.instances().map((instance) => [instance.name, instance.pid] as const));
  const cpuBefore = sampleCpu(pids);
  const agent = new Agent({ connections: 256, keepAliveTimeout: 30_000 });
  const sentAt = new Map<string, number>();
  let accepted = 0;
  const notAccepted: Record<string, number> = {};
  options.receiver.reset();
  const { sent } = await openLoop({
    ratePerSecond: options.ratePerSecond,
    durationSeconds: options.seconds,
    send: async () => {
      const { identifier, body } = bundles.next();
      sentAt.set(identifier, performance.now());
      const status = await request(`${options.gatewayUrl}/api/v2/fhir/Bundle`, {
        method: 'POST',
        dispatcher: agent,
        headers: { 'content-type': 'application/fhir+json', authorization: `Bearer ${options.token}` },
        body,
      }).then(
        async (response) => {
          await response.body.dump();
          return String(response.statusCode);
        },
        () => 'no answer',
      );
      if (status === '202') accepted++;
      else notAccepted[status] = (notAccepted[status] ?? 0) + 1;
    },
  });
  const deadline = performance.now() + options.graceMs;
  while (firstArrivals(options.receiver).size < accepted && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  await agent.close();
  const spent = cpuSpent(cpuBefore, sampleCpu(pids));
  const arrivals = firstArrivals(options.receiver);
  const latencies = [...sentAt].flatMap(([identifier, started]) => {
    const arrived = arrivals.get(identifier);
    return arrived === undefined ? [] : [arrived - started];
  });
  const round = (value: number) => Math.round(value * 10) / 10;
  return {
    ratePerSecond: options.ratePerSecond,
    seconds: options.seconds,
    sent,
    accepted,
    notAccepted,
    arrived: latencies.length,
    p50Ms: round(percentile(latencies, 50)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(Math.max(...latencies)),
    cpuMsPerRequest: Object.fromEntries(Object.entries(spent).map(([name, ms]) => [name, Math.round((ms / Math.max(1, accepted)) * 100) / 100])),
  };
}

/** When the first webhook about each request arrived (performance.now(), like the send times). */
function firstArrivals(receiver: WebhookReceiver): Map<string, number> {
  const arrivals = new Map<string, number>();
  for (const webhook of receiver.received) {
    const request = requestOf(webhook.body);
    if (request && !arrivals.has(request)) arrivals.set(request, webhook.receivedAt);
  }
  return arrivals;
}

/**
 * Figure 2: POST to webhook for requests routing answers automatically (a clinic that does not
 * offer the department: automatic decline), at 200 requests/s for 60 s.
 */
export async function endToEndFigure(options: {
  stack: Stack;
  gatewayUrl: string;
  token: string;
  performerIks: string[];
  receiver: WebhookReceiver;
  runs: number;
  seconds: number;
}) {
  const fixed: RateResult[] = [];
  for (let run = 0; run < options.runs; run++) {
    fixed.push(await atRate({ ...options, ratePerSecond: 200, seconds: options.seconds, graceMs: 60_000 }));
  }
  return {
    at200PerSecond: fixed,
    allArrived: fixed.every(complete),
    targetP99Ms: 50,
    // docs/decisions.md, "Timing": the first webhook attempt within 2 s of the 202 under light load,
    // for every request, so the slowest one counts.
    targetTimingMaxMs: 2_000,
  };
}

/** Figure 2b: rising offered rates, from low, until p99 passes 1 s; the last rate below is the answer. */
export async function highestRateFigure(options: {
  stack: Stack;
  gatewayUrl: string;
  token: string;
  performerIks: string[];
  receiver: WebhookReceiver;
  stepSeconds: number;
  rates: number[];
}) {
  const steps: RateResult[] = [];
  for (const rate of options.rates) {
    const step = await atRate({ ...options, ratePerSecond: rate, seconds: options.stepSeconds, graceMs: 30_000 });
    steps.push(step);
    if (step.p99Ms >= 1_000 || !complete(step)) break;
    // Let the queues run empty before the next rate.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
  const passing = steps.filter((step) => step.p99Ms < 1_000 && complete(step));
  return { steps, highestRateWithP99Under1s: passing.length ? Math.max(...passing.map((step) => step.ratePerSecond)) : null, target: 600 };
}
