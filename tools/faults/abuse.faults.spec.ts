import { connect, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { CLINIC, FaultFixture } from './support/fault-fixture';
import { byStatus, reportFigures, seconds } from './support/figures';
import { bundleSource } from './support/load';

/**
 * Issue 26, point 7: one party abuses the service at its configured limits while another party
 * sends its bundles, and the other party gets no 5xx and no time-out. The stack runs with a per-party
 * rate of 50 requests/s, the deployed 2 MiB/s of request bodies per party, and the per-address limit
 * for everyone (no exempt addresses); this test
 * connects from 127.0.0.1, a trusted proxy, so the X-Forwarded-For it sends is the client address.
 * For 12 seconds, at once:
 * - a flood of Task searches with the abuser's token (over its rate: 429);
 * - bundles with 40,000 made-up performers (each refused with one too-long issue, or 429);
 * - a login storm from one address (wrong passwords: 401, then 429 by the login throttle and the
 *   per-address limit);
 * - slowloris: 200 connections that send a request's headers a byte at a time and never finish;
 * while the other referrer POSTs a bundle every 50 ms, each answered and timed, and every one it was
 * answered 202 for must be stored. Its p99 under the abuse is reported beside its p99 before.
 */
const ABUSE_MS = 12_000;
const VICTIM_TIMEOUT_MS = 5_000;

describe('abuse at the limits: the other party is still served', () => {
  let faults: FaultFixture;

  beforeAll(async () => {
    faults = await FaultFixture.start('abuse', {
      RATE_LIMIT_PER_SECOND: '50',
      RATE_LIMIT_BYTES_PER_SECOND: String(2 * 2 ** 20),
      RATE_LIMIT_EXEMPT_ADDRESSES: '',
      AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS: '20',
    });
  }, 180_000);
  afterAll(() => faults?.stop(), 60_000);

  it('gives the other referrer no 5xx and no time-out while one abuses flood, huge bundles, logins and slow connections', async () => {
    const victim = { username: 'abuse-victim', password: 'abuse-victim-password', ik: '269900002', fhirBase: 'https://victim-hospital.example/fhir' };
    await faults.createReferrer(victim);
    const victimToken = (await faults.login(victim.username, victim.password)).token;
    const victimBundles = bundleSource(victim, [CLINIC.ik]);
    const abuserToken = faults.referrer.token;
    const gateway = faults.gatewayUrl;

    const victimPosts: { identifier: string; status: number; ms: number }[] = [];
    const postAsVictim = async () => {
      const { identifier, body } = victimBundles.next();
      const started = performance.now();
      const status = await fetch(`${gateway}/api/v2/fhir/Bundle`, {
        method: 'POST',
        headers: { authorization: `Bearer ${victimToken}`, 'content-type': 'application/fhir+json' },
        body,
        signal: AbortSignal.timeout(VICTIM_TIMEOUT_MS),
      }).then(
        (response) => response.status,
        () => 0,
      );
      victimPosts.push({ identifier, status, ms: performance.now() - started });
    };
    for (let n = 0; n < 40; n++) await postAsVictim();
    const unloaded = p99(victimPosts.map((post) => post.ms));

    const until = Date.now() + ABUSE_MS;
    const tried = { flood: [] as number[], huge: [] as number[], logins: [] as number[], slow: 0 };
    const call = (path: string, init: RequestInit) =>
      fetch(`${gateway}${path}`, { ...init, signal: AbortSignal.timeout(10_000) }).then(
        async (response) => (await response.arrayBuffer(), response.status),
        () => 0,
      );
    const performers = Array.from({ length: 40_000 }, (_, n) => ({ reference: `urn:uuid:00000000-0000-4000-8000-${String(n).padStart(12, '0')}` }));
    const huge = JSON.parse(bundleSource(faults.referrer, [CLINIC.ik]).next().body) as {
      entry: { resource: { resourceType: string; performer?: unknown[] } }[];
    };
    huge.entry.find((entry) => entry.resource.resourceType === 'ServiceRequest')!.resource.performer = performers;
    const hugeBody = JSON.stringify(huge);
    const sockets: Socket[] = [];
    const slowloris = async () => {
      const host = new URL(gateway);
      for (let n = 0; n < 200; n++) {
        const socket = connect(Number(host.port), host.hostname);
        socket.on('error', () => undefined);
        socket.write(`POST /api/v2/fhir/Bundle HTTP/1.1\r\nHost: ${host.host}\r\n`);
        sockets.push(socket);
        tried.slow += 1;
      }
      while (Date.now() < until) {
        for (const socket of sockets) if (!socket.destroyed) socket.write('X');
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    };
    const loop = async (work: () => Promise<void>) => {
      while (Date.now() < until) await work();
    };

    const victimUnderAbuse = victimPosts.length;
    await Promise.all([
      ...Array.from({ length: 8 }, () =>
        loop(async () => void tried.flood.push(await call('/api/v2/fhir/Task?_summary=count', { headers: { authorization: `Bearer ${abuserToken}` } }))),
      ),
      ...Array.from({ length: 2 }, () =>
        loop(
          async () =>
            void tried.huge.push(
              await call('/api/v2/fhir/Bundle', {
                method: 'POST',
                headers: { authorization: `Bearer ${abuserToken}`, 'content-type': 'application/fhir+json' },
                body: hugeBody,
              }),
            ),
        ),
      ),
      ...Array.from({ length: 4 }, () =>
        loop(
          async () =>
            void tried.logins.push(
              await call('/api/v1/token/login', {
                method: 'POST',
                headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.66' },
                body: JSON.stringify({ username: `guess-${randomUUID().slice(0, 6)}`, password: 'wrong-password-guess' }),
              }),
            ),
        ),
      ),
      slowloris(),
      loop(async () => {
        await postAsVictim();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }),
    ]);
    for (const socket of sockets) socket.destroy();

    const underAbuse = victimPosts.slice(victimUnderAbuse);
    const loaded = p99(underAbuse.map((post) => post.ms));
    const settled = await faults.settleAccepted(
      victimPosts
        .filter((post) => post.status === 202)
        .map((post) => ({ identifier: post.identifier, status: 202, sentAt: 0, answeredAt: 0, retryAfter: null })),
      60_000,
    );
    reportFigures(
      'abuse at the limits',
      `for ${seconds(ABUSE_MS)}: a flood of ${tried.flood.length} searches (${byStatus(tried.flood)}), ${tried.huge.length} bundles of 40,000 performers ` +
        `(${(hugeBody.length / 2 ** 20).toFixed(1)} MiB each; ${byStatus(tried.huge)}), ${tried.logins.length} failed logins from one address (${byStatus(tried.logins)}), ` +
        `${tried.slow} slow connections; the other referrer: ${underAbuse.length} bundles (${byStatus(underAbuse.map((post) => post.status))}), ` +
        `p99 ${loaded.toFixed(0)} ms against ${unloaded.toFixed(0)} ms before (${(loaded / unloaded).toFixed(1)}×); ${settled.missing.length} of its 202s not stored`,
    );

    expect(underAbuse.length).toBeGreaterThan(20);
    expect(byStatus(victimPosts.map((post) => post.status))).toBe(byStatus(victimPosts.map(() => 202)));
    expect(settled.missing).toEqual([]);
    expect(tried.flood.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(tried.huge.filter((status) => status !== 400 && status !== 429)).toEqual([]);
    expect(tried.logins.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect([...tried.flood, ...tried.huge, ...tried.logins].filter((status) => status >= 500 || status === 0)).toEqual([]);
  }, 120_000);
});

function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}
