import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { silentLogger, uniqueName } from '@bedrequest/testing';
import { ANY_ROLE, ServiceTokenSource, createTokenVerifier, principalOf, remoteSigningKeys, requireToken, type Role } from '@bedrequest/tokens';
// The contract between two services: tokens the auth service issues, checked by the gateway's real
// middleware and error answers. End-to-end tests live outside the apps, so no app imports another.
import { errorHandler } from '../../apps/gateway/src/http-errors';
import { authTokenClient, tokenProxyRouter } from '../../apps/gateway/src/token/token-proxy.router';
import {
  TEST_SERVICE_CLIENT_SECRET,
  clinicUser,
  login,
  postJson,
  referrer,
  startTestAuth,
  testAuthConfig,
  type TestAuth,
} from '../../apps/auth/src/testing/auth-harness';

const HOUR_MS = 3600 * 1000;

/** A gateway-like app using the real middleware, verifying against the JWKS of `auth`. */
async function startGatewayApp(auth: TestAuth, options: { now?: () => number; issuer?: string; audience?: string } = {}) {
  const verifier = createTokenVerifier({
    keys: remoteSigningKeys(new URL('/internal/jwks', auth.url)),
    issuer: options.issuer ?? 'urn:bedrequest:auth',
    audience: options.audience ?? 'urn:bedrequest:api',
    ...(options.now ? { now: options.now } : {}),
  });
  const app = express();
  const route = (roles: readonly Role[]) => [
    requireToken({ verifier, roles }),
    (_req: express.Request, res: express.Response) => {
      res.json(principalOf(res));
    },
  ];
  app.get('/api/v1/kliniken', ...route(ANY_ROLE));
  app.post('/api/v2/fhir/Bundle', ...route(['referrer']));
  app.get('/api/v1/subscriptions', ...route(['referrer']));
  app.get('/api/v1/clinic/tasks', ...route(['clinic']));
  app.use('/api/v1/token', tokenProxyRouter(authTokenClient(auth.url), silentLogger()));
  app.use(errorHandler(silentLogger()));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

const stopServer = (server: Server) => new Promise((resolve) => server.close(resolve));
const call = (url: string, token: string, method = 'GET') => fetch(url, { method, headers: { authorization: `Bearer ${token}` } });

describe('tokens of the auth service, checked by the gateway middleware', () => {
  let auth: TestAuth;
  let gateway: { server: Server; url: string };
  let gatewayClock: number;
  let referrerToken: string;
  let clinicToken: string;
  let referrerId: string;

  beforeAll(async () => {
    auth = await startTestAuth();
    referrerId = (await auth.addUser(referrer('hospital'))).id;
    await auth.addUser(clinicUser('waldsee'));
    gatewayClock = Date.now();
    gateway = await startGatewayApp(auth, { now: () => gatewayClock });
    referrerToken = (await login(auth.url, 'hospital', 'referrer-password-1')).body.accessToken as string;
    clinicToken = (await login(auth.url, 'waldsee', 'clinic-password-1')).body.accessToken as string;
  });
  afterAll(async () => {
    await stopServer(gateway.server);
    await auth.stop();
  });

  it('lets a referrer post bundles, with its party in the principal', async () => {
    const response = await call(`${gateway.url}/api/v2/fhir/Bundle`, referrerToken, 'POST');

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      partyId: referrerId,
      // A party of one (docs/parties.md, "Tokens"): the person's id is the party's.
      userId: referrerId,
      userName: 'hospital',
      role: 'referrer',
      ikNumbers: ['260000001', '260000002'],
      fhirBase: 'https://demo-hospital.example/fhir',
    });
  });

  it('lets both roles list the clinics', async () => {
    for (const token of [referrerToken, clinicToken]) expect((await call(`${gateway.url}/api/v1/kliniken`, token)).status).toBe(200);
  });

  it('refuses a clinic token on bundles (OperationOutcome) and subscriptions (error body) with 403', async () => {
    const bundle = await call(`${gateway.url}/api/v2/fhir/Bundle`, clinicToken, 'POST');
    const subscriptions = await call(`${gateway.url}/api/v1/subscriptions`, clinicToken);

    expect(bundle.status).toBe(403);
    expect(await bundle.json()).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'forbidden' }] });
    expect(subscriptions.status).toBe(403);
    expect(await subscriptions.json()).toMatchObject({ error: 'forbidden' });
  });

  it('refuses a referrer token on the clinic API with 403', async () => {
    expect((await call(`${gateway.url}/api/v1/clinic/tasks`, referrerToken)).status).toBe(403);
  });

  it('accepts a token for 3600 s and refuses it with 401 afterwards', async () => {
    const start = gatewayClock;
    try {
      gatewayClock = start + HOUR_MS - 5_000;
      expect((await call(`${gateway.url}/api/v1/kliniken`, referrerToken)).status).toBe(200);

      gatewayClock = start + HOUR_MS + 5_000;
      const expired = await call(`${gateway.url}/api/v1/kliniken`, referrerToken);
      expect(expired.status).toBe(401);
      expect(expired.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await expired.json()).toEqual({ error: 'unauthorized', message: 'the access token has expired' });
    } finally {
      gatewayClock = start;
    }
  });

  it('refuses a token the auth service issued with its clock an hour and more behind', async () => {
    const lagging = await startTestAuth({ AUTH_DB_SCHEMA: auth.config.AUTH_DB_SCHEMA }, { now: () => Date.now() - HOUR_MS - 1_000 });
    const start = gatewayClock;
    try {
      const stale = (await login(lagging.url, 'hospital', 'referrer-password-1')).body.accessToken as string;
      // The gateway's clock as it is now, not as it was when the suite began: the token ran out a
      // second before it was issued, however long the tests before this one took.
      gatewayClock = Date.now();

      expect((await call(`${gateway.url}/api/v1/kliniken`, stale)).status).toBe(401);
    } finally {
      gatewayClock = start;
      await lagging.stop();
    }
  });

  it.each([
    ['issuer', { AUTH_ISSUER: 'urn:another-auth' }],
    ['audience', { AUTH_AUDIENCE: 'urn:another-api' }],
  ])('refuses a token signed with the right key but for another %s', async (_claim, overrides) => {
    // The same schema, so the same development key: only the claim differs.
    const foreign = await startTestAuth({ AUTH_DB_SCHEMA: auth.config.AUTH_DB_SCHEMA, ...overrides });
    try {
      const token = (await login(foreign.url, 'hospital', 'referrer-password-1')).body.accessToken as string;

      expect((await call(`${gateway.url}/api/v1/kliniken`, token)).status).toBe(401);
    } finally {
      await foreign.stop();
    }
  });

  it('refuses a token whose signature was tampered with', async () => {
    const [header, payload, signature] = referrerToken.split('.');
    const flipped = `${signature!.slice(0, -2)}${signature!.endsWith('AA') ? 'BB' : 'AA'}`;

    expect((await call(`${gateway.url}/api/v1/kliniken`, `${header}.${payload}.${flipped}`)).status).toBe(401);
  });

  it('serves the token endpoints through the gateway at the same paths', async () => {
    const viaGateway = await login(gateway.url, 'hospital', 'referrer-password-1');
    expect(viaGateway.status).toBe(200);
    const renewed = await postJson(`${gateway.url}/api/v1/token/refresh`, { refreshToken: viaGateway.body.refreshToken });
    expect(renewed.status).toBe(200);
    const refused = await login(gateway.url, 'hospital', 'wrong-password');
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'invalid_credentials', message: 'username or password is wrong' });
  });
});

describe('signing key rotation', () => {
  const schema = uniqueName('auth_rotation');
  const privateJwk = async (kid: string): Promise<JWK> => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    return { ...(await exportJWK(privateKey)), kid };
  };
  const publicPart = ({ d: _d, ...rest }: JWK) => rest;

  it('keeps tokens signed by the previous key valid when it is configured as previous public key', async () => {
    const oldKey = await privateJwk('key-1');
    const newKey = await privateJwk('key-2');

    const before = await startTestAuth({ AUTH_DB_SCHEMA: schema, AUTH_SIGNING_KEY: JSON.stringify(oldKey) });
    await before.addUser(referrer('hospital'));
    const oldToken = (await login(before.url, 'hospital', 'referrer-password-1')).body.accessToken as string;
    await before.stop();

    const after = await startTestAuth({
      AUTH_DB_SCHEMA: schema,
      AUTH_SIGNING_KEY: JSON.stringify(newKey),
      AUTH_PREVIOUS_PUBLIC_KEYS: JSON.stringify([publicPart(oldKey)]),
    });
    const forgetful = await startTestAuth({ AUTH_DB_SCHEMA: schema, AUTH_SIGNING_KEY: JSON.stringify(newKey) });
    const gateway = await startGatewayApp(after);
    const gatewayWithoutOldKey = await startGatewayApp(forgetful);
    try {
      const newToken = (await login(after.url, 'hospital', 'referrer-password-1')).body.accessToken as string;

      expect((await call(`${gateway.url}/api/v1/kliniken`, oldToken)).status).toBe(200);
      expect((await call(`${gateway.url}/api/v1/kliniken`, newToken)).status).toBe(200);
      expect((await call(`${gatewayWithoutOldKey.url}/api/v1/kliniken`, oldToken)).status).toBe(401);
    } finally {
      await stopServer(gateway.server);
      await stopServer(gatewayWithoutOldKey.server);
      await after.stop();
      await forgetful.stop();
    }
  });

  describe('service tokens', () => {
    let auth: TestAuth;
    let gateway: { server: Server; url: string };
    beforeAll(async () => {
      auth = await startTestAuth();
      gateway = await startGatewayApp(auth);
    });
    afterAll(async () => {
      await stopServer(gateway.server);
      await auth.stop();
    });
    const fetchToken = (name: string, secret: string) =>
      fetch(`${auth.url}/internal/service-tokens`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`${name}:${secret}`).toString('base64')}` },
      });

    it('issues a service token for the service client secret, not cacheable, and refuses anything else with 401', async () => {
      const issued = await fetchToken('gateway', TEST_SERVICE_CLIENT_SECRET);
      expect(issued.status).toBe(200);
      expect(issued.headers.get('cache-control')).toBe('no-store');
      expect(await issued.json()).toEqual({ accessToken: expect.any(String), tokenType: 'Bearer', expiresIn: 300 });

      for (const refused of [
        await fetchToken('gateway', 'wrong-secret'),
        await fetchToken('Not A Name', TEST_SERVICE_CLIENT_SECRET),
        await fetch(`${auth.url}/internal/service-tokens`, { method: 'POST' }),
      ]) {
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^Basic /);
      }
    });

    it('takes the other secret of a rotation too, while SERVICE_CLIENT_ACCEPTED_SECRETS names it', async () => {
      const next = 'next-service-client-secret-0123456789abcdef';
      expect((await fetchToken('intake', next)).status).toBe(401);
      const rotating = await startTestAuth({ SERVICE_CLIENT_SECRET: next, SERVICE_CLIENT_ACCEPTED_SECRETS: TEST_SERVICE_CLIENT_SECRET });
      try {
        for (const secret of [next, TEST_SERVICE_CLIENT_SECRET]) {
          const issued = await fetch(`${rotating.url}/internal/service-tokens`, {
            method: 'POST',
            headers: { authorization: `Basic ${Buffer.from(`intake:${secret}`).toString('base64')}` },
          });
          expect(issued.status).toBe(200);
        }
      } finally {
        await rotating.stop();
      }
      expect(() => testAuthConfig({ SERVICE_CLIENT_ACCEPTED_SECRETS: 'short' })).toThrow(/SERVICE_CLIENT_ACCEPTED_SECRETS/);
    });

    it('makes a token the internal APIs take as the service, and the public API refuses', async () => {
      const source = new ServiceTokenSource({ authUrl: auth.url, service: 'intake', clientSecret: TEST_SERVICE_CLIENT_SECRET });
      try {
        const token = await source.token();
        expect(await source.token()).toBe(token);
        const internal = createTokenVerifier({
          keys: remoteSigningKeys(new URL('/internal/jwks', auth.url)),
          issuer: 'urn:bedrequest:auth',
          audience: 'urn:bedrequest:api',
          serviceAudience: 'urn:bedrequest:internal',
        });

        await expect(internal.verify(token)).resolves.toEqual({ kind: 'service', service: 'intake' });
        expect((await call(`${gateway.url}/api/v1/kliniken`, token)).status).toBe(401);
      } finally {
        await source.close();
      }
    });
  });
});
