import { createHash, randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { Agent, fetch } from 'undici';
import { testEnvironment, waitFor } from '@bedrequest/testing';
import { SessionStore } from '../../../apps/web/src/session/session-store';
import { passwordOf, startE2eStack, type E2eStack } from '../e2e-stack';
import { HttpBrowser, csrfOf } from './http-browser';

/**
 * The inbox's sessions against the whole stack: whose address the gateway counts the web app's
 * renewals and logouts at, what a renewal refused for now does, and when a session ends.
 *
 * The stack's services trust one proxy, 127.0.0.1, the address they call each other from
 * (TRUSTED_PROXIES): the web app. Its users' browsers connect from other loopback addresses (all of
 * 127.0.0.0/8 is the loopback on Linux), so each is a client of its own to the gateway, whose limit
 * per address (RATE_LIMIT_PER_ADDRESS_PER_SECOND, 20) here spares none of them. A flood of refresh
 * calls from an address spends that address's budget of the token endpoints. With
 * WEB_SESSION_REFRESH_MARGIN_SECONDS above the access token's lifetime (3600 s), every request of a
 * session renews its tokens; a request whose renewal went through leaves another refresh token in
 * the session. The session's times are the default ones (12 hours idle, 7 days in all): the test
 * moves a session's login and last use back in the store instead of waiting.
 */
const WEB_APP = '127.0.0.1';
const ANNA = '127.0.0.2';
const BEN = '127.0.0.3';
const CARA = '127.0.0.4';
const CLINIC = { ik: '513900001', name: 'Reha-Klinik Sitzungsweg' };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("the clinic inbox's sessions: each user's calls at the user's address, and their end", () => {
  let stack: E2eStack;
  let redis: Redis;
  const users = { anna: '', ben: '', cara: '' };
  const agents = new Map<string, Agent>();

  beforeAll(async () => {
    stack = await startE2eStack({
      NODE_ENV: 'test',
      RATE_LIMIT_EXEMPT_ADDRESSES: '',
      RATE_LIMIT_REFUSAL_HOLD_MS: '0',
      WEB_SESSION_REFRESH_MARGIN_SECONDS: '3601',
    });
    await stack.registerClinic(CLINIC.ik, CLINIC.name, ['2300']);
    const suffix = randomUUID().slice(0, 8);
    for (const name of Object.keys(users) as (keyof typeof users)[]) {
      users[name] = `inbox-${name}-${suffix}`;
      await stack.createClinicUser(users[name], CLINIC.ik);
    }
    redis = new Redis(testEnvironment().redisUrl, { keyPrefix: stack.env.REDIS_KEY_PREFIX });
  }, 180_000);

  afterAll(async () => {
    redis?.disconnect();
    await Promise.all([...agents.values()].map((agent) => agent.close()));
    await stack?.stop();
  });

  const logIn = async (username: string, address: string) => {
    const browser = new HttpBrowser(stack.webUrl, address);
    const form = await browser.get('/inbox/login');
    // A flood of the test before may have spent the address's budget for the rest of its second.
    const loggedIn = await waitFor(
      async () => {
        const answer = await browser.postForm('/inbox/login', { username, password: passwordOf(username), _csrf: csrfOf(form.text) });
        return answer.status !== 429 && answer;
      },
      { what: `a login from ${address} not refused for its rate`, intervalMs: 250 },
    );
    expect(loggedIn).toMatchObject({ status: 303, headers: { location: '/inbox/tasks' } });
    return browser;
  };
  /** What the web app keeps of the browser's session, read as the web app reads it. */
  const sessionOf = (browser: HttpBrowser) => new SessionStore(redis).load(browser.cookie('inbox_session') ?? '');
  /** How long Redis keeps the browser's session (the web app stores it under a hash of its id). */
  const ttlOf = (browser: HttpBrowser) => redis.pttl(`web:session:${createHash('sha256').update(browser.cookie('inbox_session')!).digest('base64url')}`);

  /**
   * Whether the family of a refresh token is still valid, read in auth's Redis (apps/auth/src/token/
   * refresh-token.repository.ts) rather than by refreshing: the logout's own request renews the
   * session first (every request does here), so the token read before it is already an old one,
   * which a refresh would refuse as reuse whether or not the logout revoked the family.
   */
  const familyIsLive = async (refreshToken: string) => {
    const familyId = await redis.hget(`auth:refresh:token:${createHash('sha256').update(refreshToken).digest('hex')}`, 'familyId');
    if (!familyId) throw new Error("no such refresh token in auth's Redis");
    return (await redis.exists(`auth:refresh:family:${familyId}`)) === 1;
  };

  /** A refresh at the gateway from a connection bound to `address`, as a client's own software would call it. */
  const refreshFrom = async (address: string, refreshToken: string) => {
    const agent = agents.get(address) ?? new Agent({ localAddress: address });
    agents.set(address, agent);
    const response = await fetch(`${stack.gatewayUrl}/api/v1/token/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken }),
      dispatcher: agent,
    });
    await response.arrayBuffer();
    return response.status;
  };

  /**
   * Refresh calls with a token nobody holds from each of `addresses`, four at a time, until stopped:
   * each address's budget at the token endpoints is spent again as soon as a new second gives it one.
   * Resolves once every address was refused (429) at least once; `stop` returns how many were.
   */
  const flood = async (addresses: readonly string[]) => {
    let running = true;
    const refused = new Map(addresses.map((address) => [address, 0]));
    const workers = addresses.flatMap((address) =>
      Array.from({ length: 4 }, async () => {
        while (running) {
          if ((await refreshFrom(address, `flood-${randomUUID()}`)) === 429) refused.set(address, (refused.get(address) ?? 0) + 1);
        }
      }),
    );
    await waitFor(() => [...refused.values()].every((count) => count > 0), { what: `429s to ${addresses.join(' and ')}` });
    return {
      stop: async () => {
        running = false;
        await Promise.all(workers);
        return Object.fromEntries(refused);
      },
    };
  };

  /** One page of the list, and what became of the session: still there, and renewed (another refresh token) or not. */
  const visit = async (browser: HttpBrowser) => {
    const before = await sessionOf(browser);
    const page = await browser.get('/inbox/tasks');
    const after = await sessionOf(browser);
    return { status: page.status, kept: after !== undefined, renewed: after !== undefined && after.refreshToken !== before?.refreshToken };
  };

  it("counts each user's renewals at the user's address: a flood from one address refuses that user's renewals, not another's", async () => {
    const anna = await logIn(users.anna, ANNA);
    const ben = await logIn(users.ben, BEN);

    const storm = await flood([ANNA]);
    const visits: { who: string; status: number; kept: boolean; renewed: boolean }[] = [];
    try {
      for (let turn = 0; turn < 6; turn += 1) {
        visits.push({ who: 'anna', ...(await visit(anna)) }, { who: 'ben', ...(await visit(ben)) });
      }
    } finally {
      expect((await storm.stop())[ANNA]).toBeGreaterThan(0);
    }

    // Ben's every renewal went through: his address's budget is his own.
    expect(visits.filter((visit) => visit.who === 'ben')).toEqual(Array(6).fill({ who: 'ben', status: 200, kept: true, renewed: true }));
    // Anna's were refused at her address (not the web app's, which nobody spent) ...
    const annas = visits.filter((visit) => visit.who === 'anna');
    expect(annas.filter((visit) => !visit.renewed).length).toBeGreaterThan(0);
    // ... and every page was served all the same, with the access token the session had.
    expect(annas.map(({ status, kept }) => ({ status, kept }))).toEqual(Array(6).fill({ status: 200, kept: true }));
  });

  it('keeps the session when its renewal is refused for now (429), and renews it later', async () => {
    const anna = await logIn(users.anna, ANNA);
    // Wherever the gateway counts the web app's renewal, at the user's address or the web app's, it is refused.
    const storm = await flood([ANNA, WEB_APP]);
    const visits: { status: number; kept: boolean; renewed: boolean }[] = [];
    try {
      for (let turn = 0; turn < 6; turn += 1) visits.push(await visit(anna));
    } finally {
      await storm.stop();
    }
    expect(visits.filter((visit) => !visit.renewed).length).toBeGreaterThan(0);
    expect(visits.map(({ status, kept }) => ({ status, kept }))).toEqual(Array(6).fill({ status: 200, kept: true }));
    // Once the address has a budget again (Retry-After: the next second), the same session renews.
    await waitFor(async () => (await visit(anna)).renewed, { what: "Anna's session renewed after the flood" });
  });

  it("revokes each user's tokens at logout at the user's address: a flood of the web app's own address leaves every logout revoking", async () => {
    const anna = await logIn(users.anna, ANNA);
    const ben = await logIn(users.ben, BEN);
    const logOut = async (browser: HttpBrowser) => {
      const page = await browser.get('/inbox/tasks');
      const { refreshToken } = (await sessionOf(browser))!;
      expect(await familyIsLive(refreshToken)).toBe(true);
      const answer = await browser.postForm('/inbox/logout', { _csrf: csrfOf(page.text) });
      return { status: answer.status, location: answer.headers.location, refreshToken, kept: (await sessionOf(browser)) !== undefined };
    };

    const storm = await flood([WEB_APP]);
    const loggedOut: Awaited<ReturnType<typeof logOut>>[] = [];
    try {
      loggedOut.push(await logOut(anna), await logOut(ben));
    } finally {
      await storm.stop();
    }
    for (const { status, location, kept } of loggedOut) {
      expect({ status, location, kept }).toEqual({ status: 303, location: '/inbox/login?loggedOut=1', kept: false });
    }
    // Revoked, each family: no token of it renews again.
    for (const { refreshToken } of loggedOut) expect(await familyIsLive(refreshToken)).toBe(false);
  });

  describe('the end of a session (12 hours idle, 7 days after the login)', () => {
    /** Writes the browser's session back with other times, as the web app would find it that much later. */
    const backdate = async (browser: HttpBrowser, times: { createdAt: number; lastSeenAt: number }) => {
      const id = browser.cookie('inbox_session')!;
      const record = (await sessionOf(browser))!;
      // A store that keeps any session a month: only the web app's judges these times.
      await new SessionStore(redis, { idleSeconds: 30 * 24 * 3600, lifetimeSeconds: 30 * 24 * 3600 }).save(id, { ...record, ...times });
    };
    const stored = async (browser: HttpBrowser) => {
      const record = await sessionOf(browser);
      return record && { createdAt: record.createdAt, lastSeenAt: record.lastSeenAt };
    };

    it('ends a session nobody used for 12 hours, and not one used 11 hours 59 minutes ago, whose use starts the 12 hours again', async () => {
      const cara = await logIn(users.cara, CARA);
      const loggedIn = (await stored(cara))!;
      expect(loggedIn.createdAt).toBeGreaterThan(Date.now() - 60_000);

      await backdate(cara, { createdAt: Date.now() - 12 * HOUR + 60_000, lastSeenAt: Date.now() - 12 * HOUR + 60_000 });
      const used = await cara.get('/inbox/tasks');
      expect(used.status).toBe(200);
      const afterUse = (await stored(cara))!;
      expect(afterUse.lastSeenAt).toBeGreaterThan(Date.now() - 60_000);
      // Redis drops it 12 hours after this use, unless it is used again.
      expect(await ttlOf(cara)).toBeGreaterThan(12 * HOUR - 60_000);
      expect(await ttlOf(cara)).toBeLessThanOrEqual(12 * HOUR);

      await backdate(cara, { createdAt: afterUse.createdAt - 12 * HOUR, lastSeenAt: Date.now() - 12 * HOUR - 60_000 });
      const idle = await cara.get('/inbox/tasks');
      expect(idle).toMatchObject({ status: 303, headers: { location: '/inbox/login?expired=1' } });
      expect(await sessionOf(cara)).toBeUndefined();
    });

    it("does not count the live list's polling as use: a page left open ends 12 hours after the person last did something", async () => {
      const cara = await logIn(users.cara, CARA);
      const hourAgo = Date.now() - HOUR;
      await backdate(cara, { createdAt: hourAgo, lastSeenAt: hourAgo });
      const poll = await cara.get(`/inbox/tasks/updates?since=${encodeURIComponent(new Date().toISOString())}`, { accept: 'application/json' });
      expect(poll.status).toBe(200);
      expect(await stored(cara)).toEqual({ createdAt: hourAgo, lastSeenAt: hourAgo });

      await backdate(cara, { createdAt: hourAgo - 12 * HOUR, lastSeenAt: hourAgo - 12 * HOUR });
      const late = await cara.get(`/inbox/tasks/updates?since=${encodeURIComponent(new Date().toISOString())}`, { accept: 'application/json' });
      expect(late.status).toBe(401);
      expect(await sessionOf(cara)).toBeUndefined();
    });

    it('ends a session 7 days after its login however recently it was used, and keeps one a minute short of that', async () => {
      const cara = await logIn(users.cara, CARA);
      await backdate(cara, { createdAt: Date.now() - 7 * DAY + 2 * 60_000, lastSeenAt: Date.now() - 60_000 });
      expect((await cara.get('/inbox/tasks')).status).toBe(200);
      // Redis drops it at the 7 days, well before 12 hours after this use.
      expect(await ttlOf(cara)).toBeGreaterThan(0);
      expect(await ttlOf(cara)).toBeLessThanOrEqual(2 * 60_000);

      await backdate(cara, { createdAt: Date.now() - 7 * DAY - 60_000, lastSeenAt: Date.now() - 60_000 });
      const late = await cara.get('/inbox/tasks');
      expect(late).toMatchObject({ status: 303, headers: { location: '/inbox/login?expired=1' } });
      expect(await sessionOf(cara)).toBeUndefined();
    });
  });
});
