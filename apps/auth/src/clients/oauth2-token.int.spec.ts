import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalJWKSet, decodeJwt, type JSONWebKeySet } from 'jose';
import { RevocationListAnswer } from '@bedrequest/contracts';
import { createTokenVerifier } from '@bedrequest/tokens';
import { TEST_SERVICE_CLIENT_SECRET, startTestAuth, type TestAuth } from '../testing/auth-harness';
import {
  assertionClaims,
  ecKey,
  hs256WithPublicKey,
  jwksOf,
  postTokenForm,
  rsaKey,
  signAssertion,
  tokenForm,
  unsecuredAssertion,
  type TestClientKey,
} from '../testing/client-assertions';
import type { Party } from '../parties/party';
import { PartyRepository } from '../parties/party.repository';
import type { SystemClient } from './client';
import { jtiKey } from './client-assertion';
import { ClientRepository } from './client.repository';

/**
 * `POST /api/v1/token/oauth2` (docs/parties.md, "System clients and scopes") against the real
 * PostgreSQL and Redis: assertions signed with node:crypto, tokens checked with the verifier the
 * other services use.
 */
describe('the client credentials token endpoint of auth (SMART Backend Services)', () => {
  const API_PUBLIC_URL = 'https://api.test.example';
  const AUDIENCE = `${API_PUBLIC_URL}/api/v1/token/oauth2`;
  let sut: TestAuth;
  let clients: ClientRepository;
  let clinic: Party;
  let referrer: Party;
  const clinicKey = rsaKey();
  const referrerKey = ecKey();
  let clinicClient: SystemClient;
  let referrerClient: SystemClient;

  beforeAll(async () => {
    // A trailing slash on API_PUBLIC_URL does not change the audience.
    sut = await startTestAuth({ API_PUBLIC_URL: `${API_PUBLIC_URL}/` }, { clientJwks: { cacheMaxAgeMs: 60_000, cooldownMs: 0 } });
    clients = new ClientRepository(sut.prisma);
    const parties = new PartyRepository(sut.prisma);
    clinic = await parties.create({ role: 'clinic', name: 'Rehaklinik Waldsee', ikNumbers: ['510000001'] });
    referrer = await parties.create({ role: 'referrer', name: 'Klinikum Nord', ikNumbers: ['260000001'], fhirBase: 'https://nord.example/fhir' });
    clinicClient = await clients.create({ partyId: clinic.id, name: 'Waldsee KIS', keys: { jwks: jwksOf(clinicKey) }, scopes: null });
    referrerClient = await clients.create({
      partyId: referrer.id,
      name: 'Nord Entlassmanagement',
      keys: { jwks: jwksOf(referrerKey) },
      scopes: ['system/Bundle.c', 'system/Task.rs'],
    });
  });
  afterAll(() => sut.stop());

  const assertion = (key: TestClientKey, client: SystemClient, claims: Record<string, unknown> = {}) =>
    signAssertion(key, assertionClaims(client.id, AUDIENCE, claims));
  const ask = (key: TestClientKey, client: SystemClient, claims: Record<string, unknown> = {}, extra: Record<string, string> = {}, url = sut.url) =>
    postTokenForm(url, tokenForm(assertion(key, client, claims), extra));
  const verifier = async () => {
    const jwks = (await (await fetch(`${sut.url}/internal/jwks`)).json()) as JSONWebKeySet;
    return createTokenVerifier({ keys: createLocalJWKSet(jwks), issuer: sut.config.AUTH_ISSUER, audience: sut.config.AUTH_AUDIENCE });
  };
  const refused = (status: number, error: string, description: string | RegExp) => ({
    status,
    body: { error, error_description: typeof description === 'string' ? description : expect.stringMatching(description) },
  });

  describe('issues', () => {
    it('an RS384 client its role’s scopes: the token the services verify, with scope and client_id, for five minutes', async () => {
      const response = await ask(clinicKey, clinicClient);

      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('pragma')).toBe('no-cache');
      const scope = 'system/Task.rs system/AuditEvent.rs api:kliniken api:party api:clinic';
      expect(response.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 300, scope });
      const token = response.body.access_token as string;
      const caller = await (await verifier()).verify(token);
      expect(caller).toEqual({
        kind: 'party',
        principal: expect.objectContaining({
          partyId: clinic.id,
          userId: `client:${clinicClient.id}`,
          userName: 'Waldsee KIS',
          role: 'clinic',
          ikNumbers: ['510000001'],
          clientId: clinicClient.id,
        }),
      });
      expect(caller.kind === 'party' && [...caller.principal.scopes!].sort()).toEqual(
        ['AuditEvent.r', 'AuditEvent.s', 'Task.r', 'Task.s', 'api:clinic', 'api:kliniken', 'api:party'].sort(),
      );
      const claims = decodeJwt(token);
      expect(claims).toMatchObject({ sub: clinic.id, scope, client_id: clinicClient.id, act: { sub: `client:${clinicClient.id}` } });
      expect(claims.exp! - claims.iat!).toBe(300);
    });

    it('an ES384 client the scopes it asks for within those it was registered with', async () => {
      const response = await ask(referrerKey, referrerClient, {}, { scope: 'system/Task.r system/Bundle.c' });

      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ token_type: 'Bearer', expires_in: 300, scope: 'system/Task.r system/Bundle.c' });
      const caller = await (await verifier()).verify(response.body.access_token as string);
      expect(caller.kind === 'party' && caller.principal).toMatchObject({ partyId: referrer.id, role: 'referrer', fhirBase: 'https://nord.example/fhir' });
    });

    it('a client without a scope asked for every scope it was registered with', async () => {
      expect((await ask(referrerKey, referrerClient)).body).toMatchObject({ scope: 'system/Bundle.c system/Task.rs' });
    });
  });

  describe('refuses with invalid_scope', () => {
    it.each([
      ['a scope of the other role', 'system/Bundle.c', /^this client may not be granted "system\/Bundle.c" \(Bundle.c\)$/],
      ['an unknown scope', 'system/Task.sr', /is not a scope of this service/],
    ])('%s', async (_, scope, description) => {
      expect(await ask(clinicKey, clinicClient, {}, { scope })).toMatchObject(refused(400, 'invalid_scope', description));
    });

    it('a scope of the role the client was not registered with', async () => {
      expect(await ask(referrerKey, referrerClient, {}, { scope: 'system/Task.rs api:referrer' })).toMatchObject(
        refused(400, 'invalid_scope', 'this client may not be granted "api:referrer" (api:referrer)'),
      );
    });
  });

  describe('refuses with invalid_client (401)', () => {
    it('an expired assertion', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect(await ask(clinicKey, clinicClient, { exp: now - 60 })).toMatchObject(refused(401, 'invalid_client', 'the client_assertion has expired'));
    });

    it('an assertion expiring more than five minutes ahead', async () => {
      const now = Math.floor(Date.now() / 1000);
      expect(await ask(clinicKey, clinicClient, { exp: now + 600 })).toMatchObject(
        refused(401, 'invalid_client', "the client_assertion's exp is more than 300 seconds ahead"),
      );
    });

    it.each([
      ['exp', 'the client_assertion has no exp'],
      ['jti', 'the client_assertion has no jti'],
    ])('an assertion without %s', async (claim, description) => {
      expect(await ask(clinicKey, clinicClient, { [claim]: undefined })).toMatchObject(refused(401, 'invalid_client', description));
    });

    it('a jti longer than 255 characters', async () => {
      expect(await ask(clinicKey, clinicClient, { jti: 'j'.repeat(256) })).toMatchObject(
        refused(401, 'invalid_client', "the client_assertion's jti must be 1 to 255 characters"),
      );
    });

    it('a replayed assertion, also at another auth sharing Redis and the database', async () => {
      const other = await startTestAuth({
        API_PUBLIC_URL,
        AUTH_DB_SCHEMA: sut.config.AUTH_DB_SCHEMA,
        REDIS_KEY_PREFIX: sut.config.REDIS_KEY_PREFIX,
      });
      try {
        const used = tokenForm(assertion(clinicKey, clinicClient));
        expect((await postTokenForm(sut.url, used)).status).toBe(200);
        const replayed = refused(401, 'invalid_client', "the client_assertion's jti was used before");
        expect(await postTokenForm(sut.url, used)).toMatchObject(replayed);
        expect(await postTokenForm(other.url, used)).toMatchObject(replayed);

        const first = tokenForm(assertion(clinicKey, clinicClient));
        expect((await postTokenForm(other.url, first)).status).toBe(200);
        expect(await postTokenForm(sut.url, first)).toMatchObject(replayed);
      } finally {
        await other.stop();
      }
    });

    it('keeps a used jti in Redis until the assertion expires, and the tolerance', async () => {
      const jti = `jti-${Date.now()}`;
      const exp = Math.floor(Date.now() / 1000) + 200;
      expect((await ask(clinicKey, clinicClient, { jti, exp })).status).toBe(200);

      const { Redis } = await import('ioredis');
      const redis = new Redis(sut.config.REDIS_URL, { keyPrefix: sut.config.REDIS_KEY_PREFIX });
      try {
        expect(await redis.expiretime(jtiKey(clinicClient.id, jti))).toBe(exp + 30);
      } finally {
        redis.disconnect();
      }
    });

    it('an assertion for another audience', async () => {
      expect(await ask(clinicKey, clinicClient, { aud: 'https://elsewhere.example/token' })).toMatchObject(
        refused(401, 'invalid_client', `the client_assertion's aud must be this token endpoint, ${AUDIENCE}`),
      );
    });

    it('an assertion whose iss is not its sub', async () => {
      expect(await ask(clinicKey, clinicClient, { sub: referrerClient.id })).toMatchObject(
        refused(401, 'invalid_client', "the client_assertion's iss and sub must both be the client id"),
      );
    });

    it('an unknown client', async () => {
      const claims = assertionClaims('00000000-0000-4000-8000-000000000000', AUDIENCE);
      expect(await postTokenForm(sut.url, tokenForm(signAssertion(clinicKey, claims)))).toMatchObject(refused(401, 'invalid_client', 'unknown client'));
    });

    it('a kid the client did not register', async () => {
      const stranger = rsaKey('not-registered');
      expect(await ask(stranger, clinicClient)).toMatchObject(refused(401, 'invalid_client', `no key of the client's JWKS has the kid "not-registered"`));
    });

    it("a signature by another key under the client's kid", async () => {
      const forger = { ...rsaKey(clinicKey.kid) };
      expect(await ask(forger, clinicClient)).toMatchObject(
        refused(401, 'invalid_client', `the client_assertion's signature does not verify with the client's key "${clinicKey.kid}"`),
      );
    });

    it('alg none', async () => {
      const none = unsecuredAssertion(clinicKey.kid, assertionClaims(clinicClient.id, AUDIENCE));
      expect(await postTokenForm(sut.url, tokenForm(none))).toMatchObject(
        refused(401, 'invalid_client', 'the client_assertion must be signed with RS384 or ES384, not "none"'),
      );
    });

    it('HS256 with the public key as the secret', async () => {
      const confused = hs256WithPublicKey(clinicKey, assertionClaims(clinicClient.id, AUDIENCE));
      expect(await postTokenForm(sut.url, tokenForm(confused))).toMatchObject(
        refused(401, 'invalid_client', 'the client_assertion must be signed with RS384 or ES384, not "HS256"'),
      );
    });

    it('a key rotated out of the registered JWKS', async () => {
      const [old, next] = [rsaKey(), ecKey()];
      const client = await clients.create({ partyId: clinic.id, name: 'Rotating', keys: { jwks: jwksOf(old, next) }, scopes: null });
      expect((await ask(old, client)).status).toBe(200);

      await sut.prisma.systemClient.update({ where: { id: client.id }, data: { jwks: jwksOf(next) as object } });

      expect(await ask(old, client)).toMatchObject(refused(401, 'invalid_client', `no key of the client's JWKS has the kid "${old.kid}"`));
      expect((await ask(next, client)).status).toBe(200);
    });

    it('a disabled client, whose earlier token is then on the revocation list', async () => {
      const key = ecKey();
      const client = await clients.create({ partyId: clinic.id, name: 'Soon disabled', keys: { jwks: jwksOf(key) }, scopes: null });
      const earlier = decodeJwt((await ask(key, client)).body.access_token as string);

      expect(await clients.disable(client.id, new Date())).toBe('disabled');

      expect(await ask(key, client)).toMatchObject(refused(401, 'invalid_client', 'the client is disabled'));
      const serviceToken = await fetch(`${sut.url}/internal/service-tokens`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`gateway:${TEST_SERVICE_CLIENT_SECRET}`).toString('base64')}` },
      }).then(async (answer) => ((await answer.json()) as { accessToken: string }).accessToken);
      const list = RevocationListAnswer.parse(
        await (await fetch(`${sut.url}/internal/revocations`, { headers: { authorization: `Bearer ${serviceToken}` } })).json(),
      );
      const entry = list.users.find((subject) => subject.id === `client:${client.id}`);
      expect(entry).toBeDefined();
      expect(Date.parse(entry!.revokedAt) / 1000).toBeGreaterThanOrEqual(earlier.iat!);
      expect(earlier.act).toEqual({ sub: `client:${client.id}`, name: 'Soon disabled' });
    });

    it('a client whose party is disabled', async () => {
      const parties = new PartyRepository(sut.prisma);
      const party = await parties.create({ role: 'clinic', name: 'Geschlossen', ikNumbers: ['510000002'] });
      const key = rsaKey();
      const client = await clients.create({ partyId: party.id, name: 'Orphan', keys: { jwks: jwksOf(key) }, scopes: null });
      await parties.disable(party.id, new Date());

      expect(await ask(key, client)).toMatchObject(refused(401, 'invalid_client', "the client's party is disabled"));
    });
  });

  describe('keys fetched from a jwks_url', () => {
    let server: Server;
    let served: { status: number; body: unknown };
    let jwksUrl: string;

    beforeAll(async () => {
      server = createServer((_req, res) => res.writeHead(served.status, { 'content-type': 'application/json' }).end(JSON.stringify(served.body)));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    it('follows a rotation: the new key passes, the one rotated out is refused', async () => {
      const [old, next] = [ecKey(), rsaKey()];
      served = { status: 200, body: jwksOf(old) };
      const client = await clients.create({ partyId: clinic.id, name: 'By URL', keys: { jwksUrl }, scopes: null });
      expect((await ask(old, client)).status).toBe(200);

      served = { status: 200, body: jwksOf(next) };

      expect((await ask(next, client)).status).toBe(200);
      expect(await ask(old, client)).toMatchObject(refused(401, 'invalid_client', `no key of the client's JWKS has the kid "${old.kid}"`));
    });

    it.each([
      ['answering 500', { status: 500, body: {} }],
      ['serving a private key', { status: 200, body: { keys: [{ ...rsaKey('leaked').privateKey.export({ format: 'jwk' }), kid: 'leaked' }] } }],
    ])('refuses when the keys cannot be fetched: %s', async (_, answer) => {
      served = answer;
      const client = await clients.create({ partyId: clinic.id, name: 'Broken URL', keys: { jwksUrl }, scopes: null });
      expect(await ask(rsaKey('leaked'), client)).toMatchObject(refused(401, 'invalid_client', "the client's keys could not be fetched from its jwks_url"));
    });

    it('refuses a loopback jwks_url with CLIENT_JWKS_ALLOW_PRIVATE=false', async () => {
      const key = ecKey();
      served = { status: 200, body: jwksOf(key) };
      const client = await clients.create({ partyId: clinic.id, name: 'Loopback', keys: { jwksUrl }, scopes: null });
      const guarded = await startTestAuth({
        API_PUBLIC_URL,
        AUTH_DB_SCHEMA: sut.config.AUTH_DB_SCHEMA,
        REDIS_KEY_PREFIX: sut.config.REDIS_KEY_PREFIX,
        CLIENT_JWKS_ALLOW_PRIVATE: 'false',
      });
      try {
        expect(await ask(key, client, {}, {}, guarded.url)).toMatchObject(
          refused(401, 'invalid_client', "the client's keys could not be fetched from its jwks_url"),
        );
        expect((await ask(key, client)).status).toBe(200);
      } finally {
        await guarded.stop();
      }
    });
  });

  describe('refuses with invalid_request or unsupported_grant_type (400)', () => {
    const good = () => tokenForm(assertion(clinicKey, clinicClient));
    it.each([
      ['without grant_type', { grant_type: '' }, 'invalid_request', 'missing parameter grant_type'],
      ['without client_assertion_type', { client_assertion_type: '' }, 'invalid_request', 'missing parameter client_assertion_type'],
      ['without client_assertion', { client_assertion: '' }, 'invalid_request', 'missing parameter client_assertion'],
      [
        'with another assertion type',
        { client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' },
        'invalid_request',
        'client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      ],
      [
        'with another grant type',
        { grant_type: 'password' },
        'unsupported_grant_type',
        'grant_type "password" is not supported here (client_credentials only)',
      ],
    ])('a request %s', async (_, change, error, description) => {
      expect(await postTokenForm(sut.url, { ...good(), ...change })).toMatchObject(refused(400, error, description));
    });

    it('a parameter given twice', async () => {
      const body = `${new URLSearchParams(good()).toString()}&grant_type=client_credentials`;
      expect(await postTokenForm(sut.url, body)).toMatchObject(refused(400, 'invalid_request', 'the parameter grant_type is given more than once'));
    });

    it('a JSON body', async () => {
      expect(await postTokenForm(sut.url, JSON.stringify(good()), 'application/json')).toMatchObject(
        refused(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded'),
      );
    });

    it('a body over 16 KiB', async () => {
      expect(await postTokenForm(sut.url, { ...good(), scope: 'a'.repeat(17 * 1024) })).toMatchObject(
        refused(400, 'invalid_request', 'the body is larger than 16 KiB'),
      );
    });

    it('an assertion that is not a JWT', async () => {
      expect(await postTokenForm(sut.url, { ...good(), client_assertion: 'not-a-jwt' })).toMatchObject(
        refused(401, 'invalid_client', 'the client_assertion is not a signed JWT'),
      );
    });
  });
});
