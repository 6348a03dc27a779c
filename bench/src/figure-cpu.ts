import { Client } from 'pg';
import type { Stack } from '@bedrequest/stack';
import { bundleFactory } from './bundles';
import { closedLoop } from './load';
import { cpuSpent, sampleCpu } from './process-cpu';

/** Everything the load caused is done: every clinic was notified and no outbox holds a message. */
async function waitUntilDrained(options: { databaseUrl: string; expectedNotifications: number; timeoutMs: number }): Promise<boolean> {
  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + options.timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ notified: string; outbox: string }>(
        `SELECT (SELECT count(*) FROM routing.clinic_notification) AS notified,
                (SELECT count(*) FROM intake.outbox_message) + (SELECT count(*) FROM routing.outbox_message) AS outbox`,
      );
      if (Number(rows[0]!.notified) >= options.expectedNotifications && Number(rows[0]!.outbox) === 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return false;
  } finally {
    await client.end();
  }
}

/** Average messages per batch of each queue, from a service's /metrics (`message_batch_size`). */
async function batchSizes(serviceUrls: string[]): Promise<Record<string, number>> {
  const sizes: Record<string, { sum: number; count: number }> = {};
  for (const url of serviceUrls) {
    const text = await (await fetch(`${url}/metrics`)).text();
    for (const [, kind, queue, value] of text.matchAll(/^message_batch_size_(sum|count)\{[^}]*queue="([^"]+)"[^}]*\} ([\d.e+]+)$/gm)) {
      const entry = (sizes[queue!] ??= { sum: 0, count: 0 });
      entry[kind as 'sum' | 'count'] += Number(value);
    }
  }
  return Object.fromEntries(
    Object.entries(sizes).map(([queue, { sum, count }]) => [queue.replace(/^.*\./, ''), Math.round((sum / Math.max(1, count)) * 10) / 10]),
  );
}

/**
 * Figure 0: CPU milliseconds per accepted bundle, summed over every process of the stack (the five
 * services, PostgreSQL, RabbitMQ, Redis), from /proc before and after `seconds` of load at
 * `connections`, read once the work the load caused has drained. Each bundle is a new request to
 * two clinics that answer themselves (routing notifies them; no automatic answer).
 */
export async function cpuFigure(options: {
  stack: Stack;
  databaseUrl: string;
  gatewayUrl: string;
  token: string;
  performerIks: string[];
  seconds: number;
  connections: number;
}) {
  const bundles = bundleFactory(options.performerIks);
  const pids = new Map(options.stack.instances().map((instance) => [instance.name, instance.pid] as const));
  const client = new Client({ connectionString: options.databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM routing.clinic_notification');
  await client.end();
  const notifiedBefore = Number(rows[0]!.count);

  const before = sampleCpu(pids);
  const started = performance.now();
  const load = await closedLoop({
    url: `${options.gatewayUrl}/api/v2/fhir/Bundle`,
    method: 'POST',
    headers: { 'content-type': 'application/fhir+json', authorization: `Bearer ${options.token}` },
    body: () => bundles.next().body,
    connections: options.connections,
    durationSeconds: options.seconds,
  });
  const drained = await waitUntilDrained({
    databaseUrl: options.databaseUrl,
    expectedNotifications: notifiedBefore + load.ok * options.performerIks.length,
    timeoutMs: 300_000,
  });
  const wallSeconds = (performance.now() - started) / 1000;
  const spent = cpuSpent(before, sampleCpu(pids));
  const perBundle = Object.fromEntries(Object.entries(spent).map(([name, ms]) => [name, Math.round((ms / Math.max(1, load.ok)) * 100) / 100]));
  const total = Object.values(spent).reduce((sum, ms) => sum + ms, 0);
  const consumers = ['intake', 'routing', 'notifier']
    .filter((name) => options.stack.instances().some((instance) => instance.name === name))
    .map((name) => options.stack.probeUrl(name));
  return {
    seconds: options.seconds,
    connections: options.connections,
    accepted: load.ok,
    non2xx: load.non2xx,
    drained,
    wallSecondsUntilDrained: Math.round(wallSeconds * 10) / 10,
    cpuMsPerBundle: Math.round((total / Math.max(1, load.ok)) * 100) / 100,
    cpuMsPerBundleByProcess: perBundle,
    averageBatchSize: await batchSizes(consumers),
    target: 3,
  };
}
