// The abusing party of figure 9 (figure-abuse.ts), in a process of its own, as a real abuser is
// another client: in the bench's process its sending (bodies of 2.4 MiB, hundreds of requests a
// second) took that process's event loop, and delayed the answers of the other party timed there.
// Forked with the AbuseOrder as its one message; answers with AbuseReport and exits.
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';

export interface AbuseOrder {
  gatewayUrl: string;
  token: string;
  ik: string;
  fhirBase: string;
  performerIks: string[];
  /** Date.now() at which to begin and to stop. */
  from: number;
  until: number;
}

export interface AbuseReport {
  /** Statuses of each kind of abuse, `{ 429: 1200, 200: 300 }` (0: no answer). */
  flood: Record<number, number>;
  huge: Record<number, number>;
  logins: Record<number, number>;
  slow: number;
  hugeBundleBytes: number;
  /** This process's CPU while abusing (user + system), ms: the abuser shares the machine's cores. */
  cpuMs: number;
}

async function abuse(order: AbuseOrder): Promise<AbuseReport> {
  const url = order.gatewayUrl;
  const huge = admissionRequestBundle({
    fhirBase: order.fhirBase,
    requesterIk: order.ik,
    performerIks: order.performerIks,
    requestIdentifier: `${order.fhirBase}/ServiceRequest/${randomUUID()}`,
  }) as { entry: { resource: { resourceType: string; performer?: unknown[] } }[] };
  huge.entry.find((entry) => entry.resource.resourceType === 'ServiceRequest')!.resource.performer = Array.from({ length: 40_000 }, (_, n) => ({
    reference: `urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
  }));
  // Encoded once: the abuser spends its CPU on sending, not on encoding the same text again.
  const hugeBody = Buffer.from(JSON.stringify(huge));
  const report: AbuseReport = { flood: {}, huge: {}, logins: {}, slow: 0, hugeBundleBytes: hugeBody.length, cpuMs: 0 };
  const count = (kind: Record<number, number>, status: number) => void (kind[status] = (kind[status] ?? 0) + 1);
  const call = (kind: Record<number, number>, path: string, init: RequestInit) =>
    fetch(`${url}${path}`, { ...init, signal: AbortSignal.timeout(10_000) }).then(
      async (response) => (await response.arrayBuffer(), count(kind, response.status)),
      () => count(kind, 0),
    );
  const loop = async (work: () => Promise<void>) => {
    while (Date.now() < order.until) await work();
  };
  const sockets: Socket[] = [];
  const slowloris = async () => {
    const { hostname, port, host } = new URL(url);
    for (let n = 0; n < 200; n++, report.slow++) {
      const socket = connect(Number(port), hostname).on('error', () => undefined);
      socket.write(`POST /api/v2/fhir/Bundle HTTP/1.1\r\nHost: ${host}\r\n`);
      sockets.push(socket);
    }
    while (Date.now() < order.until) {
      for (const socket of sockets) if (!socket.destroyed) socket.write('X');
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  };
  // node:http, not fetch, for the large bodies: fetch took about 17 ms of this process's CPU per
  // body of 2.4 MiB, node:http about 2 ms, on the cores the service shares.
  const agent = new Agent({ keepAlive: true, maxSockets: 2 });
  const postHuge = () =>
    new Promise<number>((resolve) => {
      const sent = request(
        `${url}/api/v2/fhir/Bundle`,
        {
          method: 'POST',
          agent,
          timeout: 10_000,
          headers: { authorization: `Bearer ${order.token}`, 'content-type': 'application/fhir+json', 'content-length': hugeBody.length },
        },
        (response) => response.resume().on('end', () => resolve(response.statusCode ?? 0)),
      );
      sent.on('error', () => resolve(0)).on('timeout', () => sent.destroy());
      sent.end(hugeBody);
    });
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, order.from - Date.now())));
  const cpuBefore = process.cpuUsage();
  await Promise.all([
    ...Array.from({ length: 8 }, () =>
      loop(() => call(report.flood, '/api/v2/fhir/Task?_summary=count', { headers: { authorization: `Bearer ${order.token}` } })),
    ),
    ...Array.from({ length: 2 }, () => loop(() => postHuge().then((status) => count(report.huge, status)))),
    ...Array.from({ length: 4 }, () =>
      loop(() =>
        call(report.logins, '/api/v1/token/login', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.66' },
          body: JSON.stringify({ username: `guess-${randomUUID().slice(0, 6)}`, password: 'wrong-password-guess' }),
        }),
      ),
    ),
    slowloris(),
  ]);
  const cpu = process.cpuUsage(cpuBefore);
  report.cpuMs = (cpu.user + cpu.system) / 1000;
  for (const socket of sockets) socket.destroy();
  agent.destroy();
  return report;
}

process.once('message', (order: AbuseOrder) => {
  abuse(order).then(
    (report) => process.send!(report, () => process.exit(0)),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
