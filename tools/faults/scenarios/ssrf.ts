import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import pino from 'pino';
import { Registry } from 'prom-client';
import { AdmissionResponseV1, declareTopology } from '@bedrequest/contracts';
import { connectServiceBroker, type Broker } from '@bedrequest/messaging';
import { bundleScript, deleteBrokerTopology, testEnvironment, waitFor } from '@bedrequest/testing';
import { provisionTopology, root } from '@bedrequest/stack';
import type { FaultFixture } from '../support/fault-fixture';
import { reportFigures } from '../support/figures';
import { fhirTask } from '@bedrequest/fhir-model/testing';

/**
 * SSRF in production mode (docs/webhooks.md, "Address guard"): callbacks to 127.0.0.1, [::1],
 * 169.254.169.254, 10.0.0.1, a name resolving to 127.0.0.1, and a redirect to an internal address.
 * Proved: each is refused at subscription or at delivery, and 0 connections reach a loopback
 * canary listener.
 *
 * A notifier with NODE_ENV=production (WEBHOOK_ALLOW_PRIVATE=false) and a gateway in front of it,
 * beside the side-by-side stack. Host names resolve through a table the test writes
 * (support/ssrf-notifier.ts), never through real DNS. No packet may leave this machine, so:
 *
 * - A public address stands for "a receiver on the internet". The loopback firewall preloaded into
 *   the notifier (support/loopback-firewall.cjs) turns a connection to it into one to a local
 *   redirector, which answers `302 Location: <the canary>`; nothing goes to the real address.
 * - 10.0.0.1 and 169.254.169.254 are never really connected to: if the guard let one through, the
 *   firewall would refuse the connect before a socket exists and record it. The test asserts the
 *   guard's own refusal (400 at subscription, an attempt logged as refused at delivery) and that
 *   the firewall recorded nothing.
 * - Loopback cases point at the canary (127.0.0.1 and ::1, the same port): a guard failure would
 *   show as a canary connection.
 */
const PUBLIC_ADDRESS = '93.184.215.14';

interface DeliveryCase {
  name: string;
  /** The subscription is saved with a name resolving to PUBLIC_ADDRESS ... */
  callbackUrl: (canaryPort: number) => string;
  /** ... which then resolves to these addresses (DNS rebinding), or */
  resolvesLaterTo?: string[];
  /** the stored address is changed behind the API's back (a subscription saved under another configuration). */
  storedUrl?: (canaryPort: number) => string;
  /** What the one attempt must end with. */
  expected: 'refused' | 'redirect-not-followed';
}

const DELIVERY_CASES: DeliveryCase[] = [
  {
    name: 'stored 127.0.0.1',
    callbackUrl: (port) => `http://stored-a.faults.test:${port}/hook`,
    storedUrl: (port) => `http://127.0.0.1:${port}/hook`,
    expected: 'refused',
  },
  {
    name: 'stored [::1]',
    callbackUrl: (port) => `http://stored-b.faults.test:${port}/hook`,
    storedUrl: (port) => `http://[::1]:${port}/hook`,
    expected: 'refused',
  },
  {
    name: 'stored 169.254.169.254',
    callbackUrl: () => 'http://stored-c.faults.test/latest/meta-data/',
    storedUrl: () => 'http://169.254.169.254/latest/meta-data/',
    expected: 'refused',
  },
  { name: 'stored 10.0.0.1', callbackUrl: () => 'http://stored-d.faults.test/hook', storedUrl: () => 'http://10.0.0.1/hook', expected: 'refused' },
  {
    name: 'name re-pointed to 127.0.0.1',
    callbackUrl: (port) => `http://rebind-a.faults.test:${port}/hook`,
    resolvesLaterTo: ['127.0.0.1'],
    expected: 'refused',
  },
  { name: 'name re-pointed to ::1', callbackUrl: (port) => `http://rebind-b.faults.test:${port}/hook`, resolvesLaterTo: ['::1'], expected: 'refused' },
  {
    name: 'name re-pointed to 169.254.169.254',
    callbackUrl: () => 'http://rebind-c.faults.test/latest/meta-data/',
    resolvesLaterTo: ['169.254.169.254'],
    expected: 'refused',
  },
  { name: 'name re-pointed to 10.0.0.1', callbackUrl: () => 'http://rebind-d.faults.test/hook', resolvesLaterTo: ['10.0.0.1'], expected: 'refused' },
  {
    name: 'name with a public and a loopback address',
    callbackUrl: (port) => `http://rebind-e.faults.test:${port}/hook`,
    resolvesLaterTo: [PUBLIC_ADDRESS, '127.0.0.1'],
    expected: 'refused',
  },
  { name: 'redirect to the canary', callbackUrl: () => 'http://redirector.faults.test/hook', expected: 'redirect-not-followed' },
];

/** Refused when the subscription is saved (400), before anything is stored or sent. */
const SUBSCRIPTION_CASES = (port: number) => [
  `http://127.0.0.1:${port}/hook`,
  `http://[::1]:${port}/hook`,
  'http://169.254.169.254/latest/meta-data/',
  'http://10.0.0.1/hook',
  `http://loopback.faults.test:${port}/hook`,
  `http://localhost:${port}/hook`,
  `http://2130706433:${port}/hook`,
  `http://0.0.0.0:${port}/hook`,
  `http://[::ffff:127.0.0.1]:${port}/hook`,
];

/** A listener on 127.0.0.1 and ::1 (same port) that counts every connection it gets. */
class Canary {
  connections = 0;
  private readonly servers: Server[] = [];
  port = 0;

  async start(): Promise<void> {
    const listen = (host: string, port: number) =>
      new Promise<Server>((resolve, reject) => {
        const server = createServer((socket) => {
          this.connections++;
          socket.destroy();
        });
        server.once('error', reject);
        server.listen(port, host, () => resolve(server));
      });
    const first = await listen('127.0.0.1', 0);
    this.servers.push(first);
    this.port = (first.address() as AddressInfo).port;
    this.servers.push(await listen('::1', this.port));
  }

  async stop(): Promise<void> {
    await Promise.all(this.servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

export async function ssrf(faults: FaultFixture): Promise<void> {
  const canary = new Canary();
  await canary.start();
  let redirected = 0;
  const redirector: HttpServer = createHttpServer((_req, res) => {
    redirected++;
    res.writeHead(302, { location: `http://127.0.0.1:${canary.port}/internal` }).end();
  });
  await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
  const redirectorPort = (redirector.address() as AddressInfo).port;

  const dnsFile = join(root, 'tmp', 'faults', `${faults.namespace}.dns.json`);
  const dns: Record<string, string[]> = { localhost: ['127.0.0.1', '::1'], 'loopback.faults.test': ['127.0.0.1'], 'redirector.faults.test': [PUBLIC_ADDRESS] };
  for (const name of ['stored-a', 'stored-b', 'stored-c', 'stored-d', 'rebind-a', 'rebind-b', 'rebind-c', 'rebind-d', 'rebind-e']) {
    dns[`${name}.faults.test`] = [PUBLIC_ADDRESS];
  }
  writeFileSync(dnsFile, JSON.stringify(dns));

  const namespace = `${faults.namespace}-ssrf`;
  const schema = `${faults.namespace}_ssrf_notifier`;
  let broker: Broker | undefined;
  const refusedAtSubscription: string[] = [];
  const outcomes = new Map<string, { statusCode: number | null; error: string | null }>();
  try {
    await provisionTopology({ AMQP_URL: faults.stack.env.AMQP_URL, AMQP_NAMESPACE: namespace });
    const notifier = await faults.stack.start('notifier-ssrf', 'notifier', {
      env: {
        NODE_ENV: 'production',
        // Production seals data at rest only with a configured key-encryption key.
        DATA_KEK: randomBytes(32).toString('base64'),
        WEBHOOK_ALLOW_PRIVATE: 'false',
        // The address guard is what is under test, and the redirector and canary speak plain http.
        WEBHOOK_REQUIRE_HTTPS: 'false',
        AMQP_NAMESPACE: namespace,
        NOTIFIER_DB_SCHEMA: schema,
        // A namespace and schema of its own, which the stack's provisioning did not make: it connects
        // as the local administrator (its migrations), on the topology provisioned for it above.
        DATABASE_URL: faults.stack.env.DATABASE_URL!,
        AMQP_URL: faults.stack.env.AMQP_URL!,
        DATABASE_POOL_SIZE: '3',
        // One attempt per event: each case is decided by exactly one attempt.
        WEBHOOK_RETRY_SCHEDULE: '',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        FAULTS_DNS_FILE: dnsFile,
        FAULTS_FIREWALL_MAP: JSON.stringify({ [PUBLIC_ADDRESS]: redirectorPort }),
        NOTIFIER_TEST_MIGRATIONS_DIR: join(root, 'apps', 'notifier', 'prisma', 'migrations'),
      },
      entry: bundleScript(join(__dirname, '..', 'support', 'ssrf-notifier.ts')),
    });
    const gateway = await faults.stack.start('gateway-ssrf', 'gateway', { env: { NOTIFIER_URL: notifier.url } });

    // At subscription time, through the public API: 400 for every internal address.
    for (const callbackUrl of SUBSCRIPTION_CASES(canary.port)) {
      const response = await fetch(`${gateway.url}/api/v1/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${faults.referrer.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl }),
      });
      if (response.status === 400) refusedAtSubscription.push(callbackUrl);
    }
    expect(SUBSCRIPTION_CASES(canary.port).filter((url) => !refusedAtSubscription.includes(url))).toEqual([]);

    // At delivery time: subscriptions saved while their names were public, then re-pointed (or
    // their stored address changed), one event each.
    const subscriptions = new Map<string, string>();
    for (const delivery of DELIVERY_CASES) {
      const party = `ssrf-${randomUUID()}`;
      const response = await fetch(`${notifier.url}/internal/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${await faults.referrerToken(party)}`, 'content-type': 'application/json' },
        body: JSON.stringify({ eventType: 'AdmissionResponse', callbackUrl: delivery.callbackUrl(canary.port) }),
      });
      expect({ case: delivery.name, status: response.status }).toEqual({ case: delivery.name, status: 201 });
      const { id } = (await response.json()) as { id: string };
      subscriptions.set(delivery.name, `${party} ${id}`);
      const host = new URL(delivery.callbackUrl(canary.port)).hostname;
      if (delivery.resolvesLaterTo) dns[host] = delivery.resolvesLaterTo;
      if (delivery.storedUrl) {
        await faults.pool.query(`UPDATE "${schema}".subscription SET callback_url = $1 WHERE id = $2`, [delivery.storedUrl(canary.port), id]);
      }
    }
    writeFileSync(dnsFile, JSON.stringify(dns));

    broker = await connectServiceBroker(
      { AMQP_URL: testEnvironment().amqpUrl, AMQP_NAMESPACE: namespace, AMQP_PREFETCH: 8, AMQP_DELIVERY_LIMIT: 5 },
      { logger: pino({ level: 'silent' }), metrics: new Registry() },
    );
    for (const [name, partyAndId] of subscriptions) {
      const [party] = partyAndId.split(' ');
      const requestIdentifier = `${faults.referrer.fhirBase}/ServiceRequest/${randomUUID()}`;
      await broker.publish(
        AdmissionResponseV1,
        {
          eventId: randomUUID(),
          referrerPartyId: party!,
          requestIdentifier,
          task: fhirTask({ requestIdentifier, businessStatus: 'accepted' }),
          source: 'clinic',
        },
        { correlationId: `ssrf ${name}` },
      );
    }
    await waitFor(
      async () => {
        for (const [name, partyAndId] of subscriptions) {
          if (outcomes.has(name)) continue;
          const [party, id] = partyAndId.split(' ');
          const log = (await (
            await fetch(`${notifier.url}/internal/subscriptions/${id}/deliveries`, {
              headers: { authorization: `Bearer ${await faults.referrerToken(party!)}` },
            })
          ).json()) as { items: { attempts: { statusCode: number | null; error: string | null }[] }[] };
          const attempt = log.items[0]?.attempts[0];
          if (attempt) outcomes.set(name, attempt);
        }
        return outcomes.size === subscriptions.size;
      },
      { timeoutMs: 30_000, intervalMs: 200, what: 'one attempt per delivery case' },
    );

    for (const delivery of DELIVERY_CASES) {
      const outcome = outcomes.get(delivery.name)!;
      const matches =
        delivery.expected === 'refused'
          ? outcome.statusCode === null && /callback address (is|resolves to) a/.test(outcome.error ?? '')
          : outcome.statusCode === 302;
      expect({ case: delivery.name, outcome, matches }).toEqual({ case: delivery.name, outcome, matches: true });
    }
    expect(redirected).toBeGreaterThanOrEqual(1);
    expect(canary.connections).toBe(0);
    expect(faults.blockedConnections()).toEqual([]);
  } finally {
    const refusedAtDelivery = [...outcomes.values()].filter((outcome) => outcome.statusCode === null).length;
    reportFigures(
      'SSRF (production mode)',
      `${refusedAtSubscription.length} of ${SUBSCRIPTION_CASES(canary.port).length} internal callback URLs refused at subscription (400); ` +
        `${refusedAtDelivery} of ${DELIVERY_CASES.length - 1} re-pointed or stored internal addresses refused at delivery, 1 redirect not followed (${redirected} request at the redirector); ` +
        `${canary.connections} connections reached the canary, ${faults.blockedConnections().length} connections beyond loopback attempted`,
    );
    await broker?.stop(2_000).catch(() => undefined);
    await faults.stack.stopInstance('gateway-ssrf');
    await faults.stack.stopInstance('notifier-ssrf');
    await deleteBrokerTopology(testEnvironment().amqpUrl, declareTopology(namespace)).catch(() => undefined);
    await faults.pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await canary.stop();
    await new Promise((resolve) => redirector.close(resolve));
    rmSync(dnsFile, { force: true });
  }
}
