import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { TcpProxy, testEnvironment, waitFor } from '@bedrequest/testing';
import { clinicUser, login, postJson, referrer, refresh, startTestAuth, type TestAuth } from '../testing/auth-harness';

describe('token endpoints of the auth service, against the real PostgreSQL and Redis', () => {
  let sut: TestAuth;

  beforeAll(async () => {
    sut = await startTestAuth({
      AUTH_LOGIN_MAX_FAILURES_PER_USERNAME_AND_ADDRESS: '3',
      AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS: '6',
      AUTH_LOGIN_MAX_FAILURES_PER_USERNAME: '9',
    });
    await sut.addUser(referrer('hospital'));
    await sut.addUser(clinicUser('waldsee'));
  });
  afterAll(() => sut.stop());

  const jwks = async () => (await (await fetch(`${sut.url}/internal/jwks`)).json()) as JSONWebKeySet;
  let address = 0;
  /** A client address of its own per test, so that the per-address limit of one test does not leak into the next. */
  const from = () => {
    address += 1;
    // 198.18.0.0/15 (RFC 2544): room for as many addresses as the suite takes.
    return { 'x-forwarded-for': `198.18.${address >> 8}.${address & 255}` };
  };

  describe('login', () => {
    it('answers a referrer with the token response and an access token naming the party', async () => {
      const response = await login(sut.url, 'hospital', 'referrer-password-1', from());

      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.body).toEqual({
        tokenType: 'Bearer',
        accessToken: expect.any(String),
        expiresIn: 3600,
        refreshToken: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      });
      const accessToken = response.body.accessToken as string;
      expect(decodeProtectedHeader(accessToken)).toMatchObject({ alg: 'EdDSA', typ: 'at+jwt', kid: expect.any(String) });
      const { payload } = await jwtVerify(accessToken, createLocalJWKSet(await jwks()), {
        issuer: 'urn:bedrequest:auth',
        audience: 'urn:bedrequest:api',
      });
      expect(payload).toEqual({
        sub: expect.stringMatching(/^[0-9a-f-]{36}$/),
        role: 'referrer',
        ik: ['260000001', '260000002'],
        fhirBase: 'https://demo-hospital.example/fhir',
        // A party of one (docs/parties.md, "Tokens"): the person's id is the party's.
        act: { sub: payload.sub, name: 'hospital' },
        jti: expect.any(String),
        iss: 'urn:bedrequest:auth',
        aud: 'urn:bedrequest:api',
        iat: expect.any(Number),
        exp: payload.iat! + 3600,
      });
    });

    it('gives a clinic user a token with its one IK number and no FHIR base', async () => {
      const response = await login(sut.url, 'waldsee', 'clinic-password-1', from());

      const { payload } = await jwtVerify(response.body.accessToken as string, createLocalJWKSet(await jwks()));
      expect(payload).toMatchObject({ role: 'clinic', ik: ['510000001'] });
      expect(payload).not.toHaveProperty('fhirBase');
    });

    it('treats usernames case-insensitively', async () => {
      expect((await login(sut.url, 'Hospital', 'referrer-password-1', from())).status).toBe(200);
    });

    it('answers an unknown user and a wrong password with the same 401', async () => {
      const unknown = await login(sut.url, 'nobody', 'referrer-password-1', from());
      const wrong = await login(sut.url, 'hospital', 'wrong-password', from());

      expect(unknown.status).toBe(401);
      expect(wrong.status).toBe(401);
      expect(unknown.body).toEqual({ error: 'invalid_credentials', message: 'username or password is wrong' });
      expect(wrong.body).toEqual(unknown.body);
      expect([...wrong.headers.keys()].filter((name) => name !== 'date' && name !== 'x-correlation-id')).toEqual(
        [...unknown.headers.keys()].filter((name) => name !== 'date' && name !== 'x-correlation-id'),
      );
    });

    it.each([
      ['no password', { username: 'hospital' }],
      ['a number as password', { username: 'hospital', password: 42 }],
      ['an empty username', { username: '', password: 'x' }],
      ['not JSON at all', '{"username": '],
      ['an unknown field', { username: 'hospital', password: 'referrer-password-1', remember: true }],
    ])('answers 400 for a body with %s', async (_case, body) => {
      const response = await postJson(`${sut.url}/api/v1/token/login`, body, from());

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: 'invalid_request', message: expect.any(String) });
    });

    it('names each refused field in the message', async () => {
      const response = await postJson(`${sut.url}/api/v1/token/login`, { username: '', password: 42, remember: true }, from());

      expect(response.body).toEqual({ error: 'invalid_request', message: 'username: must not be empty; password: must be a string; remember: not allowed' });
    });

    it('refuses a disabled user like a wrong password', async () => {
      await sut.addUser(referrer('retired', 'retired-password'));
      await sut.prisma.userAccount.update({ where: { username: 'retired' }, data: { disabledAt: new Date() } });

      const response = await login(sut.url, 'retired', 'retired-password', from());

      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: 'invalid_credentials' });
    });
  });

  describe('refresh', () => {
    const loggedIn = async () => (await login(sut.url, 'hospital', 'referrer-password-1', from())).body.refreshToken as string;

    it('returns a fresh pair, and the used refresh token no longer works', async () => {
      const first = await loggedIn();

      const renewed = await refresh(sut.url, first);

      expect(renewed.status).toBe(200);
      expect(renewed.body).toEqual({ tokenType: 'Bearer', accessToken: expect.any(String), expiresIn: 3600, refreshToken: expect.any(String) });
      expect(renewed.body.refreshToken).not.toBe(first);
      expect((await refresh(sut.url, renewed.body.refreshToken)).status).toBe(200);
    });

    it('revokes the whole family when a used refresh token comes back', async () => {
      const first = await loggedIn();
      const second = (await refresh(sut.url, first)).body.refreshToken as string;

      const replay = await refresh(sut.url, first);

      expect(replay.status).toBe(401);
      expect(replay.body).toMatchObject({ error: 'invalid_refresh_token' });
      expect((await refresh(sut.url, second)).status).toBe(401);
    });

    it('lets exactly one of several concurrent refreshes with the same token succeed', async () => {
      const token = await loggedIn();

      const answers = await Promise.all(Array.from({ length: 8 }, () => refresh(sut.url, token)));

      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401, 401, 401, 401, 401, 401, 401]);
    });

    it('answers 401 for an unknown token and 400 for a missing one', async () => {
      expect((await refresh(sut.url, 'A'.repeat(43))).status).toBe(401);
      expect((await postJson(`${sut.url}/api/v1/token/refresh`, {})).body).toEqual({ error: 'invalid_request', message: 'refreshToken: is required' });
    });

    it.each([
      ['an access token', async () => (await login(sut.url, 'hospital', 'referrer-password-1', from())).body.accessToken as string],
      ['3,000 characters', async () => 'A'.repeat(3000)],
      ['an empty string', async () => ''],
    ])('answers %s as a refresh token with 401, like any token that is not live', async (_case, token) => {
      const response = await refresh(sut.url, await token());

      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: 'invalid_refresh_token' });
    });

    it('refuses unknown fields with 400 naming them, and a refreshToken that is not a string naming it', async () => {
      const token = await loggedIn();

      const unknownField = await postJson(`${sut.url}/api/v1/token/refresh`, { refreshToken: token, grantType: 'refresh_token' });
      const notString = await postJson(`${sut.url}/api/v1/token/refresh`, { refreshToken: 42 });

      expect([unknownField.status, unknownField.body]).toEqual([400, { error: 'invalid_request', message: 'grantType: not allowed' }]);
      expect([notString.status, notString.body]).toEqual([400, { error: 'invalid_request', message: 'refreshToken: must be a string' }]);
      expect((await refresh(sut.url, token)).status).toBe(200);
    });

    it('refuses to refresh for a user who was disabled after logging in', async () => {
      await sut.addUser(referrer('leaving', 'leaving-password'));
      const token = (await login(sut.url, 'leaving', 'leaving-password', from())).body.refreshToken as string;
      await sut.prisma.userAccount.update({ where: { username: 'leaving' }, data: { disabledAt: new Date() } });

      expect((await refresh(sut.url, token)).status).toBe(401);
    });

    it('ends a family at its absolute lifetime, however often it was refreshed', async () => {
      const bounded = await startTestAuth({ AUTH_REFRESH_TOKEN_TTL_SECONDS: '60', AUTH_REFRESH_FAMILY_MAX_AGE_SECONDS: '3' });
      try {
        await bounded.addUser(referrer('bounded', 'bounded-password'));
        const loginSentAt = performance.now();
        let token = (await login(bounded.url, 'bounded', 'bounded-password')).body.refreshToken as string;
        // Refreshed again and again, each token good for 60 s: only the family's lifetime ends it. The
        // bound only catches a family that never ends.
        const answers: number[] = [];
        const endedAt = await waitFor(
          async () => {
            const renewed = await refresh(bounded.url, token);
            answers.push(renewed.status);
            if (renewed.status === 200) token = renewed.body.refreshToken as string;
            return renewed.status !== 200 && performance.now();
          },
          { timeoutMs: 30_000, intervalMs: 200, what: 'the end of the family' },
        );

        // Refreshed several times, then refused. Not before its 3 s: the family began when the login
        // arrived, after it was sent (a busy machine only makes the end seen later).
        expect(answers.at(-1)).toBe(401);
        expect(answers.slice(0, -1).filter((status) => status !== 200)).toEqual([]);
        expect(answers.length).toBeGreaterThanOrEqual(3);
        expect(endedAt - loginSentAt).toBeGreaterThanOrEqual(3_000);
        expect((await login(bounded.url, 'bounded', 'bounded-password')).status).toBe(200);
      } finally {
        await bounded.stop();
      }
    });

    it('answers 401 once the refresh token has expired', async () => {
      const shortLived = await startTestAuth({ AUTH_REFRESH_TOKEN_TTL_SECONDS: '1' });
      try {
        await shortLived.addUser(referrer('brief', 'brief-password'));
        const token = (await login(shortLived.url, 'brief', 'brief-password')).body.refreshToken as string;

        await new Promise((resolve) => setTimeout(resolve, 2_100));

        expect((await refresh(shortLived.url, token)).status).toBe(401);
      } finally {
        await shortLived.stop();
      }
    });
  });

  describe('revoke', () => {
    const loggedIn = async () => (await login(sut.url, 'hospital', 'referrer-password-1', from())).body.refreshToken as string;
    const revoke = (refreshToken: unknown) => postJson(`${sut.url}/api/v1/token/revoke`, { refreshToken });

    it('answers 200 with no body and no-store, and neither the revoked token nor the one it was rotated from refreshes again', async () => {
      const first = await loggedIn();
      const live = (await refresh(sut.url, first)).body.refreshToken as string;

      const response = await revoke(live);

      expect(response.status).toBe(200);
      expect(response.body).toEqual({});
      expect(response.headers.get('content-length')).toBe('0');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect((await refresh(sut.url, live)).status).toBe(401);
      expect((await refresh(sut.url, first)).status).toBe(401);
    });

    it('revokes the whole family: with an earlier token of it, no later token refreshes', async () => {
      const first = await loggedIn();
      const second = (await refresh(sut.url, first)).body.refreshToken as string;
      const third = (await refresh(sut.url, second)).body.refreshToken as string;

      expect((await revoke(first)).status).toBe(200);

      expect((await refresh(sut.url, third)).status).toBe(401);
      expect((await refresh(sut.url, second)).status).toBe(401);
    });

    it("leaves the user's other logins alive", async () => {
      const revoked = await loggedIn();
      const other = await loggedIn();

      await revoke(revoked);

      expect((await refresh(sut.url, other)).status).toBe(200);
    });

    it.each([
      ['an unknown token', async () => 'A'.repeat(43)],
      [
        'a token revoked before',
        async () => {
          const token = await loggedIn();
          await revoke(token);
          return token;
        },
      ],
      ['an access token', async () => (await login(sut.url, 'hospital', 'referrer-password-1', from())).body.accessToken as string],
      ['an empty string', async () => ''],
    ])('answers 200 for %s, as for a live one (RFC 7009 2.2)', async (_case, token) => {
      const response = await revoke(await token());

      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
    });

    it('refuses a body without a refreshToken string with 400 naming the field, and revokes nothing', async () => {
      const token = await loggedIn();

      const missing = await postJson(`${sut.url}/api/v1/token/revoke`, {});
      const notString = await postJson(`${sut.url}/api/v1/token/revoke`, { refreshToken: 42 });
      const unknownField = await postJson(`${sut.url}/api/v1/token/revoke`, { refreshToken: token, token_type_hint: 'refresh_token' });

      expect([missing.status, missing.body]).toEqual([400, { error: 'invalid_request', message: 'refreshToken: is required' }]);
      expect([notString.status, notString.body]).toEqual([400, { error: 'invalid_request', message: 'refreshToken: must be a string' }]);
      expect([unknownField.status, unknownField.body]).toEqual([400, { error: 'invalid_request', message: 'token_type_hint: not allowed' }]);
      expect((await refresh(sut.url, token)).status).toBe(200);
    });
  });

  describe('throttling', () => {
    it("locks a username out from the address that failed, right password included, and not from the owner's other address", async () => {
      await sut.addUser(referrer('target', 'target-password'));
      const attacker = from();
      for (let attempt = 0; attempt < 3; attempt += 1) {
        expect((await login(sut.url, 'target', 'guess', attacker)).status).toBe(401);
      }

      const locked = await login(sut.url, 'target', 'target-password', attacker);
      const owner = await login(sut.url, 'target', 'target-password', from());

      expect(locked.status).toBe(429);
      expect(locked.body).toMatchObject({ error: 'too_many_requests' });
      const retryAfter = Number(locked.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(15 * 60);
      expect(owner.status).toBe(200);
      // The owner's login elsewhere frees nothing for the address that guessed.
      expect((await login(sut.url, 'target', 'target-password', attacker)).status).toBe(429);
    });

    it('answers 429 after repeated failures from one address, whatever the usernames', async () => {
      const sprayer = from();
      for (let attempt = 0; attempt < 6; attempt += 1) {
        expect((await login(sut.url, `user-${attempt}`, 'password', sprayer)).status).toBe(401);
      }

      const locked = await login(sut.url, 'hospital', 'referrer-password-1', sprayer);

      expect(locked.status).toBe(429);
      expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await login(sut.url, 'hospital', 'referrer-password-1', from())).status).toBe(200);
    });

    it("counts the connection's own address when X-Forwarded-For comes from a peer that is not a trusted proxy", async () => {
      // A second auth beside the suite's, trusting only a range the test's loopback connection is not in.
      const direct = await startTestAuth({ TRUSTED_PROXIES: '10.0.0.0/8', AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS: '3' });
      try {
        await direct.addUser(referrer('direct', 'direct-password'));
        for (let attempt = 0; attempt < 3; attempt += 1) {
          expect((await login(direct.url, `forger-${attempt}`, 'password', from())).status).toBe(401);
        }
        // Each try claimed another address; all of them counted against the one they came from.
        expect((await login(direct.url, 'direct', 'direct-password', from())).status).toBe(429);
      } finally {
        await direct.stop();
      }
    });

    it('counts each guess before checking it: of many at once for one username from one address, only the limit get an answer other than 429', async () => {
      await sut.addUser(referrer('stormed', 'stormed-password'));
      const attacker = from();
      // Six at once: within the limit per address, twice the one per username and address.
      const answers = await Promise.all(Array.from({ length: 6 }, () => login(sut.url, 'stormed', 'guess', attacker)));
      expect(answers.map((answer) => answer.status).sort()).toEqual([401, 401, 401, 429, 429, 429]);
    });

    it('refuses a username over its limit across addresses only from addresses it has not logged in from, counting guesses sent at once', async () => {
      await sut.addUser(referrer('besieged', 'besieged-password'));
      const office = from();
      expect((await login(sut.url, 'besieged', 'besieged-password', office)).status).toBe(200);

      // Twelve addresses guess at once, one each: the limit per username (9) lets nine be checked.
      const guesses = await Promise.all(Array.from({ length: 12 }, () => login(sut.url, 'besieged', 'guess', from())));
      expect(guesses.map((answer) => answer.status).sort()).toEqual([...Array<number>(9).fill(401), 429, 429, 429]);

      const stranger = await login(sut.url, 'besieged', 'besieged-password', from());
      expect(stranger.status).toBe(429);
      expect(Number(stranger.headers.get('retry-after'))).toBeGreaterThan(0);
      expect((await login(sut.url, 'besieged', 'besieged-password', office)).status).toBe(200);
      // The owner's login does not reopen the username to addresses it has not logged in from.
      expect((await login(sut.url, 'besieged', 'besieged-password', from())).status).toBe(429);
    });

    it('answers an unknown username exactly as a known one under every limit', async () => {
      await sut.addUser(referrer('existing', 'existing-password'));
      const answersTo = async (username: string) => {
        const statuses: number[] = [];
        const attacker = from();
        for (let attempt = 0; attempt < 4; attempt += 1) statuses.push((await login(sut.url, username, 'guess', attacker)).status);
        // Over the limit per username across addresses: eight more addresses, one guess each.
        for (let attempt = 0; attempt < 8; attempt += 1) statuses.push((await login(sut.url, username, 'guess', from())).status);
        return statuses;
      };

      const known = await answersTo('existing');
      const unknown = await answersTo('never-existed');

      expect(known).toEqual([401, 401, 401, 429, ...Array<number>(6).fill(401), 429, 429]);
      expect(unknown).toEqual(known);
    });

    it('counts the IPv6 addresses of one /64 as one address, and another /64 apart', async () => {
      for (let attempt = 0; attempt < 6; attempt += 1) {
        const address = { 'x-forwarded-for': `2001:db8:77:1:${attempt + 1}::${attempt + 10}` };
        expect((await login(sut.url, `v6-user-${attempt}`, 'password', address)).status).toBe(401);
      }
      expect((await login(sut.url, 'hospital', 'referrer-password-1', { 'x-forwarded-for': '2001:db8:77:1:ffff:ffff:ffff:ffff' })).status).toBe(429);
      expect((await login(sut.url, 'hospital', 'referrer-password-1', { 'x-forwarded-for': '2001:db8:77:2::1' })).status).toBe(200);
    });

    it('gives the successful login its count back, so that logins from one address never add up to a lock-out', async () => {
      const office = from();
      for (let attempt = 0; attempt < 8; attempt += 1) {
        expect((await login(sut.url, 'hospital', 'referrer-password-1', office)).status).toBe(200);
      }
    });

    it('forgets the failures of a username from an address once it logs in from there', async () => {
      await sut.addUser(referrer('forgetful', 'forgetful-password'));
      const desk = from();
      // Two rounds: a third would reach the limit per address, which a success does not clear.
      for (let round = 0; round < 2; round += 1) {
        for (let attempt = 0; attempt < 2; attempt += 1) expect((await login(sut.url, 'forgetful', 'typo', desk)).status).toBe(401);
        expect((await login(sut.url, 'forgetful', 'forgetful-password', desk)).status).toBe(200);
      }
    });
  });

  it('answers the status endpoint without authentication', async () => {
    const response = await fetch(`${sut.url}/api/v1/token/status`);

    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok' });
  });

  it('publishes only public key material in the JWKS', async () => {
    const { keys } = await jwks();

    expect(keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: expect.any(String), kid: expect.any(String), alg: 'EdDSA', use: 'sig' }]);
  });
});

describe('the auth service while Redis is down', () => {
  const redis = new URL(testEnvironment().redisUrl);
  const proxy = new TcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  let sut: TestAuth;

  beforeAll(async () => {
    const port = await proxy.start();
    redis.port = String(port);
    sut = await startTestAuth({ REDIS_URL: redis.toString() });
    await sut.addUser(referrer('hospital'));
  });
  afterAll(async () => {
    await sut.stop();
    await proxy.stop();
  });

  it('answers login, refresh and revoke with 503 and Retry-After, and recovers when Redis is back', async () => {
    await waitFor(async () => (await fetch(`${sut.auth.internalUrl}/health/ready`)).status === 200, { what: 'auth ready' });
    const token = (await login(sut.url, 'hospital', 'referrer-password-1')).body.refreshToken as string;

    proxy.cut();
    await waitFor(async () => (await fetch(`${sut.auth.internalUrl}/health/ready`)).status === 503, { what: 'redis seen as down' });
    const refused = await login(sut.url, 'hospital', 'referrer-password-1');
    const refreshRefused = await refresh(sut.url, token);
    // A revocation that cannot be carried out is no 200: the caller must not believe the token dead.
    const revokeRefused = await postJson(`${sut.url}/api/v1/token/revoke`, { refreshToken: token });

    for (const response of [refused, refreshRefused, revokeRefused]) {
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      expect(response.body).toEqual({ error: 'unavailable', message: 'the authentication service is temporarily unavailable' });
    }

    proxy.restore();
    await waitFor(async () => (await login(sut.url, 'hospital', 'referrer-password-1')).status === 200, { what: 'login after recovery' });
    expect((await refresh(sut.url, token)).status).toBe(200);
  });
});
