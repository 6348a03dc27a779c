import { Client } from 'pg';
import type { ProcessStack } from '../../tools/e2e/process-stack';
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

/**
 * Figure 0: CPU milliseconds per accepted bundle, summed over every process of the stack (the five
 * services, PostgreSQL, RabbitMQ, Redis), from /proc before and after `seconds` of load at
 * `connections`, read once the work the load caused has drained. Each bundle is a new request to
 * two clinics that answer themselves (routing notifies them; no automatic answer).
 */
export async function cpuFigure(options: { stack: ProcessStack; databaseUrl: string; gatewayUrl: string; token: string; performerIks: string[]; seconds: number; connections: number }) {
  const bundles = bundleFactory(options.performerIks);
  const pids = new Map([...options.stack.services.values()].map((service) => [service.name, service.process.pid!] as const));
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
  return {
    seconds: options.seconds,
    connections: options.connections,
    accepted: load.ok,
    non2xx: load.non2xx,
    drained,
    wallSecondsUntilDrained: Math.round(wallSeconds * 10) / 10,
    cpuMsPerBundle: Math.round((total / Math.max(1, load.ok)) * 100) / 100,
    cpuMsPerBundleByProcess: perBundle,
    target: 3,
  };
}
