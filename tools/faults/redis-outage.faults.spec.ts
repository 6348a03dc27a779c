import { waitFor } from '@bedrequest/testing';
import { CLINIC, FaultFixture, REFERRER, type Tokens } from './support/fault-fixture';
import { byStatus, reportFigures, seconds } from './support/figures';
import { redis, whileDown, type OutageTimes } from './support/infrastructure';
import { accepted, bundleSource, postBundle, type PostRecord } from './support/load';

/**
 * Redis stopped. Proved: access tokens still verify and bundles are taken (each answered 202 and
 * stored); login and refresh answer 503 with Retry-After, and work again once Redis is back. Redis
 * holds only refresh tokens and login throttling (docs/architecture.md); the gateway checks access tokens
 * itself with auth's public keys. The machine's Redis is shut down for a few seconds (without
 * saving: it runs without persistence here, like on CI).
 */
const DOWN_AT_LEAST_MS = 3_000;

interface Answer {
  status: number;
  retryAfter: string | null;
}

describe('Redis stopped', () => {
  let faults: FaultFixture;
  let posts: PostRecord[] = [];
  let taskSearch: Answer | undefined;
  let login: Answer | undefined;
  let refresh: Answer | undefined;
  let times: OutageTimes | undefined;
  let loginBackAfter = 0;
  let stored = -1;

  beforeAll(async () => {
    faults = await FaultFixture.start('redis');
  }, 180_000);

  afterAll(async () => {
    reportFigures(
      'Redis stopped',
      `down ${seconds(times ? times.startingAt - times.downAt : 0)}: ${posts.length} POSTs with an access token from before (${byStatus(posts.map((post) => post.status))}), ${stored} of them stored; ` +
        `Task search ${taskSearch?.status ?? '?'}; login ${login?.status ?? '?'} (Retry-After ${login?.retryAfter ?? '-'}), refresh ${refresh?.status ?? '?'} (Retry-After ${refresh?.retryAfter ?? '-'}); ` +
        `login works again ${seconds(loginBackAfter)} after Redis was back`,
    );
    await faults?.stop();
  });

  it('keeps verifying access tokens and taking bundles; login and refresh answer 503', async () => {
    const before: Tokens = await faults.login(REFERRER.username, REFERRER.password);
    const bundles = bundleSource(faults.referrer, [CLINIC.ik]);
    const call = async (path: string, init: RequestInit = {}): Promise<Answer> => {
      const response = await fetch(`${faults.gatewayUrl}${path}`, init);
      await response.arrayBuffer();
      return { status: response.status, retryAfter: response.headers.get('retry-after') };
    };
    const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

    ({ times } = await whileDown(redis, async (downAt) => {
      posts = await Promise.all(Array.from({ length: 50 }, () => postBundle(faults.gatewayUrl, before.token, bundles.next())));
      taskSearch = await call(`/api/v2/fhir/Task?based-on=${encodeURIComponent(posts[0]!.identifier)}`, {
        headers: { authorization: `Bearer ${before.token}` },
      });
      login = await call('/api/v1/token/login', json({ username: REFERRER.username, password: REFERRER.password }));
      refresh = await call('/api/v1/token/refresh', json({ refreshToken: before.refreshToken }));
      await new Promise((resolve) => setTimeout(resolve, downAt + DOWN_AT_LEAST_MS - Date.now()));
    }));
    // This Redis keeps no ACL file, so it lost the services' users with the restart: provisioning
    // runs again, as an operator's would (docs/operations.md, "Provisioning").
    await faults.stack.provisionAgain();
    // Auth reconnects to Redis by itself (backoff up to 5 s).
    await waitFor(async () => (await call('/api/v1/token/login', json({ username: REFERRER.username, password: REFERRER.password }))).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'login to work again',
    });
    loginBackAfter = Date.now() - times!.backAt;
    const after = await faults.login(REFERRER.username, REFERRER.password);
    const refreshedAfter = await call('/api/v1/token/refresh', json({ refreshToken: after.refreshToken }));
    const counts = await faults.settleAccepted(posts, 60_000);
    stored = counts.storedOnce;

    expect(posts.map((post) => post.status)).toEqual(posts.map(() => 202));
    expect(counts.missing).toEqual([]);
    expect(taskSearch?.status).toBe(200);
    expect(login).toEqual({ status: 503, retryAfter: expect.any(String) });
    expect(refresh).toEqual({ status: 503, retryAfter: expect.any(String) });
    expect(refreshedAfter.status).toBe(200);
    expect(accepted(posts)).toHaveLength(50);
  });
});
