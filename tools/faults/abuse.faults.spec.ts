import { fork } from 'node:child_process';
import { join } from 'node:path';
import { root } from '@bedrequest/stack';
import { bundleScript } from '@bedrequest/testing';
import { CLINIC, FaultFixture } from './support/fault-fixture';
import { byStatus, reportFigures, seconds } from './support/figures';
import { bundleSource } from './support/load';

/**
 * One party abuses the service at its configured limits (docs/decisions.md, "Errors": 429 with
 * Retry-After) while another party sends its bundles. Proved: the other party gets no 5xx and no
 * time-out, and every bundle it was answered 202 for is stored. The stack runs with a per-party
 * rate of 50 requests/s, the deployed 2 MiB/s of request bodies per party, and the per-address limit
 * for everyone (no exempt addresses). The abuser is bench figure 9's (bench/src/abuser.ts), in a
 * process of its own: in this one its sending took the event loop the other referrer's answers are
 * timed on. It connects from 127.0.0.1, a trusted proxy, so the X-Forwarded-For it sends is the
 * client address. For 12 seconds, at once:
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

/** What the abuser reports (bench/src/abuser.ts, AbuseReport): statuses per kind of abuse, 0 for no answer. */
interface AbuseReport {
  flood: Record<number, number>;
  huge: Record<number, number>;
  logins: Record<number, number>;
  slow: number;
  hugeBundleBytes: number;
}

describe('abuse at the limits: the other party is still served', () => {
  let faults: FaultFixture;
  let abuserScript: string;

  beforeAll(async () => {
    abuserScript = bundleScript(join(root, 'bench', 'src', 'abuser.ts'));
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

    // The abuser prepares its bodies before `from`, so that both begin together.
    const from = Date.now() + 1_000;
    const until = from + ABUSE_MS;
    const abuser = fork(abuserScript, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const reported = new Promise<AbuseReport>((resolve, reject) => {
      abuser.once('message', (report) => resolve(report as AbuseReport));
      abuser.once('exit', (code) => code !== 0 && reject(new Error(`the abuser exited with ${code} before reporting`)));
    });
    abuser.send({
      gatewayUrl: gateway,
      token: faults.referrer.token,
      ik: faults.referrer.ik,
      fhirBase: faults.referrer.fhirBase,
      performerIks: [CLINIC.ik],
      from,
      until,
    });
    await new Promise((resolve) => setTimeout(resolve, from - Date.now()));
    const victimUnderAbuse = victimPosts.length;
    while (Date.now() < until) {
      await postAsVictim();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const tried = await reported;

    const underAbuse = victimPosts.slice(victimUnderAbuse);
    const loaded = p99(underAbuse.map((post) => post.ms));
    const settled = await faults.settleAccepted(
      victimPosts
        .filter((post) => post.status === 202)
        .map((post) => ({ identifier: post.identifier, status: 202, sentAt: 0, answeredAt: 0, retryAfter: null })),
      60_000,
    );
    const statuses = (counts: Record<number, number>) => Object.entries(counts).flatMap(([status, count]) => Array<number>(count).fill(Number(status)));
    const [flood, huge, logins] = [statuses(tried.flood), statuses(tried.huge), statuses(tried.logins)];
    reportFigures(
      'abuse at the limits',
      `for ${seconds(ABUSE_MS)}: a flood of ${flood.length} searches (${byStatus(flood)}), ${huge.length} bundles of 40,000 performers ` +
        `(${(tried.hugeBundleBytes / 2 ** 20).toFixed(1)} MiB each; ${byStatus(huge)}), ${logins.length} failed logins from one address (${byStatus(logins)}), ` +
        `${tried.slow} slow connections; the other referrer: ${underAbuse.length} bundles (${byStatus(underAbuse.map((post) => post.status))}), ` +
        `p99 ${loaded.toFixed(0)} ms against ${unloaded.toFixed(0)} ms before (${(loaded / unloaded).toFixed(1)}×); ${settled.missing.length} of its 202s not stored`,
    );

    expect(underAbuse.length).toBeGreaterThan(20);
    expect(byStatus(victimPosts.map((post) => post.status))).toBe(byStatus(victimPosts.map(() => 202)));
    expect(settled.missing).toEqual([]);
    expect(flood.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect(huge.filter((status) => status !== 400 && status !== 429)).toEqual([]);
    expect(logins.filter((status) => status === 429).length).toBeGreaterThan(0);
    expect([...flood, ...huge, ...logins].filter((status) => status >= 500 || status === 0)).toEqual([]);
  }, 120_000);
});

function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] ?? 0;
}
