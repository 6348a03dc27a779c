import { Client } from 'pg';
import { OtlpReceiver } from '@bedrequest/testing';
import type { Stack } from '@bedrequest/stack';
import { bundleFactory } from './bundles';
import { closedLoop, summarize } from './load';
import { cpuSpent, sampleCpu } from './process-cpu';

/** Tracing as production would run it: OTLP over HTTP in protobuf (the default), the default batch delay of 5 s. */
const TRACING_ON = { OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' };
/** Off whatever the bench's own environment says. */
const TRACING_OFF = { OTEL_TRACES_EXPORTER: 'none' };
/** The batch processor exports every 5 s: after the work drained, both modes wait this long so the last export is counted. */
const LAST_EXPORT_MS = 6_000;

/** Nothing the load caused is left: no outbox message, no webhook pending, every clinic notified. */
async function waitUntilDrained(databaseUrl: string, expectedNotifications: number, timeoutMs: number): Promise<boolean> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ notified: string; left: string }>(
        `SELECT (SELECT count(*) FROM routing.clinic_notification) AS notified,
                (SELECT count(*) FROM intake.outbox_message) + (SELECT count(*) FROM routing.outbox_message)
                  + (SELECT count(*) FROM notifier.delivery WHERE status = 'pending') AS left`,
      );
      if (Number(rows[0]!.notified) >= expectedNotifications && Number(rows[0]!.left) === 0) return true;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return false;
  } finally {
    await client.end();
  }
}

async function notifications(databaseUrl: string): Promise<number> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM routing.clinic_notification');
    return Number(rows[0]!.count);
  } finally {
    await client.end();
  }
}

/** Every service of the stack started again, one after another on its own ports, with `env` on top of the stack's. */
async function restartAll(stack: Stack, env: Record<string, string>): Promise<void> {
  for (const instance of stack.instances()) {
    const { name, service, port } = instance;
    // Every service's probes are on an internal port of its own.
    const internalPort = Number(new URL(instance.probeUrl).port);
    await stack.stopInstance(name);
    await stack.start(name, service, { port, internalPort, env });
  }
}

/**
 * The cost of tracing: CPU milliseconds per accepted bundle, summed over every process of the stack
 * (the six services, PostgreSQL, RabbitMQ, Redis), with tracing off and on, in alternating runs on
 * the same stack (each service restarted between them). With tracing on, every service exports to a
 * collector in this process (OtlpReceiver; its CPU is the collector's, not counted). Each bundle goes
 * to two clinics: one that takes orthopaedics (routing notifies it) and one that does not (intake
 * declines at once and the notifier sends the referrer's webhook), so that all four services of a
 * request's path are in its trace. Closed loop, as figure 0; CPU from /proc, read once the work the
 * load caused has drained and the last spans were exported.
 */
export async function tracingFigure(options: {
  stack: Stack;
  databaseUrl: string;
  token: string;
  /** A clinic that takes the department, and one that does not. */
  performerIks: [string, string];
  seconds: number;
  connections: number;
  /** Pairs of runs: off, on, off, on... */
  pairs: number;
}) {
  const { stack } = options;
  const collector = await OtlpReceiver.start();
  const bundles = bundleFactory(options.performerIks);
  const runs: Record<
    'off' | 'on',
    { cpuMsPerBundle: number; servicesCpuMsPerBundle: number; byProcess: Record<string, number>; accepted: number; drained: boolean }[]
  > = { off: [], on: [] };
  let exported = { exports: 0, bytes: 0, bundles: 0 };
  try {
    for (let pair = 0; pair < options.pairs; pair++) {
      for (const mode of ['off', 'on'] as const) {
        await restartAll(stack, mode === 'on' ? { ...TRACING_ON, OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint } : TRACING_OFF);
        const pids = new Map(stack.instances().map((instance) => [instance.name, instance.pid] as const));
        const notifiedBefore = await notifications(options.databaseUrl);
        const before = { cpu: sampleCpu(pids), exports: collector.exports, bytes: collector.bytes };
        const load = await closedLoop({
          url: `${stack.gatewayUrl}/api/v2/fhir/Bundle`,
          method: 'POST',
          headers: { 'content-type': 'application/fhir+json', authorization: `Bearer ${options.token}` },
          body: () => bundles.next().body,
          connections: options.connections,
          durationSeconds: options.seconds,
        });
        const drained = await waitUntilDrained(options.databaseUrl, notifiedBefore + load.ok, 300_000);
        await new Promise((resolve) => setTimeout(resolve, LAST_EXPORT_MS));
        const spent = cpuSpent(before.cpu, sampleCpu(pids));
        const total = Object.values(spent).reduce((sum, ms) => sum + ms, 0);
        const services = [...pids.keys()].reduce((sum, name) => sum + (spent[name] ?? 0), 0);
        const per = (ms: number) => Math.round((ms / Math.max(1, load.ok)) * 100) / 100;
        runs[mode].push({
          cpuMsPerBundle: per(total),
          servicesCpuMsPerBundle: per(services),
          byProcess: Object.fromEntries(Object.entries(spent).map(([name, ms]) => [name, per(ms)])),
          accepted: load.ok,
          drained,
        });
        if (mode === 'on') {
          exported = {
            exports: exported.exports + collector.exports - before.exports,
            bytes: exported.bytes + collector.bytes - before.bytes,
            bundles: exported.bundles + load.ok,
          };
        }
        console.log(
          `[bench]   tracing ${mode}: ${per(services)} ms CPU per bundle in the services, ${per(total)} with PostgreSQL, RabbitMQ and Redis (${load.ok} accepted)`,
        );
      }
    }
  } finally {
    await restartAll(stack, TRACING_OFF);
    await collector.stop();
  }
  const off = summarize(runs.off.map((run) => run.cpuMsPerBundle));
  const on = summarize(runs.on.map((run) => run.cpuMsPerBundle));
  const servicesOff = summarize(runs.off.map((run) => run.servicesCpuMsPerBundle));
  const servicesOn = summarize(runs.on.map((run) => run.servicesCpuMsPerBundle));
  const medianBy = (mode: 'off' | 'on') =>
    Object.fromEntries(Object.keys(runs[mode][0]?.byProcess ?? {}).map((name) => [name, summarize(runs[mode].map((run) => run.byProcess[name] ?? 0)).median]));
  return {
    seconds: options.seconds,
    connections: options.connections,
    exporter: 'otlp http/protobuf to a collector on 127.0.0.1, batch delay 5 s',
    cpuMsPerBundle: { off, on },
    overheadMsPerBundle: Math.round((on.median - off.median) * 100) / 100,
    overheadPercent: Math.round(((on.median - off.median) / off.median) * 1000) / 10,
    // The services' own processes only: what tracing adds is spent there, while the infrastructure's
    // share is read by process name and counts whatever else runs on the machine.
    servicesCpuMsPerBundle: { off: servicesOff, on: servicesOn },
    servicesOverheadMsPerBundle: Math.round((servicesOn.median - servicesOff.median) * 100) / 100,
    servicesOverheadPercent: Math.round(((servicesOn.median - servicesOff.median) / servicesOff.median) * 1000) / 10,
    requestsPerSecond: {
      off: summarize(runs.off.map((run) => run.accepted / options.seconds)),
      on: summarize(runs.on.map((run) => run.accepted / options.seconds)),
    },
    cpuMsPerBundleByProcess: { off: medianBy('off'), on: medianBy('on') },
    exportedBytesPerBundle: Math.round(exported.bytes / Math.max(1, exported.bundles)),
    exportsPerSecond: Math.round((exported.exports / Math.max(1, options.pairs * options.seconds)) * 10) / 10,
    accepted: { off: runs.off.map((run) => run.accepted), on: runs.on.map((run) => run.accepted) },
    drained: [...runs.off, ...runs.on].every((run) => run.drained),
  };
}
