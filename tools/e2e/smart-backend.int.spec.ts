// SMART Backend Services through the whole stack (docs/parties.md, "System clients and scopes"):
// discovery, clients registered with the admin command line, assertions signed here with
// node:crypto (not with jose, which auth uses), the token endpoint's refusals, replay across two auth
// instances, and every guarded route of the OpenAPI document refusing a client's token without the
// route's scope. Every answer through the gateway is checked against the OpenAPI document.
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { fetchExchange } from './api-client';
import { clientAssertion, clientTokenForm, testClientKey, type TestClientKey } from './client-assertion';
import { startE2eStack, type ApiResponse, type E2eStack } from './e2e-stack';

const API_PUBLIC_URL = 'https://bedrequest.test/';
const TOKEN_ENDPOINT = 'https://bedrequest.test/api/v1/token/oauth2';
const CLINIC_IK = '510000801';
const FORM = 'application/x-www-form-urlencoded';

interface TokenAnswer {
  access_token: string;
  token_type: string;
  expires_in: number;
  scope: string;
}
interface OAuthError {
  error: string;
  error_description: string;
}

describe('SMART Backend Services: system clients of parties', () => {
  let stack: E2eStack;
  let hospitalParty: string;
  let clinicParty: string;
  const rsaKey = testClientKey('RS384');
  const ecKey = testClientKey('ES384');
  const nextEcKey = testClientKey('ES384');
  let hospitalClient: string;
  let clinicClient: string;
  // The clinic client's keys are fetched from this server: its JWKS can change under the client.
  let servedKeys: Record<string, unknown>[] = [ecKey.jwk];
  // The key the clinic's client signs with: the next one once the rotation test has taken the first out.
  let clinicKey = ecKey;
  let jwksServer: Server;

  const requestToken = (assertion: string, scope?: string) =>
    stack.api<TokenAnswer & OAuthError>('POST', '/api/v1/token/oauth2', { body: clientTokenForm(assertion, scope), contentType: FORM });
  const tokenOf = async (clientId: string, key: TestClientKey, scope?: string) => {
    const answer = await requestToken(clientAssertion(clientId, TOKEN_ENDPOINT, key), scope);
    expect([answer.status, answer.body.error_description]).toEqual([200, undefined]);
    return answer.body.access_token;
  };
  const expectRefused = (answer: ApiResponse<OAuthError>, status: number, error: string, description: RegExp) => {
    expect({ status: answer.status, error: answer.body.error }).toEqual({ status, error });
    expect(answer.body.error_description).toMatch(description);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  };

  beforeAll(async () => {
    jwksServer = createServer((_req, res) => res.setHeader('content-type', 'application/json').end(JSON.stringify({ keys: servedKeys })));
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    stack = await startE2eStack({
      API_PUBLIC_URL,
      CLIENT_JWKS_ALLOW_PRIVATE: 'true',
      CLIENT_JWKS_CACHE_MAX_AGE_SECONDS: '1',
      CLIENT_JWKS_COOLDOWN_SECONDS: '1',
    });
    await stack.registerClinic(CLINIC_IK, 'Rehaklinik Schnittstelle', ['2300']);
    hospitalParty = await stack.createParty('referrer', 'Klinikum mit KIS', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    clinicParty = await stack.createParty('clinic', 'Rehaklinik Schnittstelle', [CLINIC_IK]);
    const jwksFile = join(tmpdir(), `smart-jwks-${randomUUID()}.json`);
    await writeFile(jwksFile, JSON.stringify({ keys: [rsaKey.jwk] }));
    hospitalClient = (await stack.admin('client', 'create', '--party', hospitalParty, '--name', 'KIS Anbindung', '--jwks-file', jwksFile))
      .split('\n')[0]!
      .trim();
    const jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    clinicClient = (await stack.admin('client', 'create', '--party', clinicParty, '--name', 'Reha-KIS', '--jwks-url', jwksUrl)).split('\n')[0]!.trim();
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await new Promise((resolve) => jwksServer?.close(resolve));
  });

  it('announces the token endpoint, private_key_jwt with RS384 and ES384, the grant and the scopes, without a token', async () => {
    const discovery = await stack.api<Record<string, unknown>>('GET', '/api/v2/fhir/.well-known/smart-configuration');
    expect(discovery.status).toBe(200);
    expect(discovery.body).toMatchObject({
      token_endpoint: TOKEN_ENDPOINT,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['RS384', 'ES384'],
    });
    expect(discovery.body['scopes_supported']).toEqual(
      expect.arrayContaining(['system/Bundle.c', 'system/Task.rs', 'system/AuditEvent.rs', 'api:subscriptions']),
    );
    const statement = await stack.api<{ rest: { security: { extension: { extension: { valueUri: string }[] }[] } }[] }>('GET', '/api/v2/fhir/metadata');
    expect(statement.body.rest[0]!.security.extension[0]!.extension[0]!.valueUri).toBe(TOKEN_ENDPOINT);
  });

  it("gives a hospital's RS384 client a token of its party that sends a bundle and reads its Tasks", async () => {
    const answer = await requestToken(clientAssertion(hospitalClient, TOKEN_ENDPOINT, rsaKey));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 300, scope: expect.stringContaining('system/Bundle.c') });
    expect(answer.body).not.toHaveProperty('refresh_token');
    expect([answer.headers.get('cache-control'), answer.headers.get('pragma')]).toEqual(['no-store', 'no-cache']);
    const token = answer.body.access_token;

    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC_IK] });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token, body: bundle })).status).toBe(202);
    const search = await stack.api<{ total: number }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token });
    expect([search.status, search.body.total]).toEqual([200, 1]);
    // What the client did is its own in the audit trail: `act` names the client.
    const audit = await stack.api<{ entry?: { resource: { agent: { who: { identifier?: { value: string } }; name?: string }[] } }[] }>(
      'GET',
      `/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(identifier)}`,
      { token },
    );
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain(`client:${hospitalClient}`);
  });

  it("gives a clinic's ES384 client, its keys fetched by URL, a token with the scopes it asked for, within its role", async () => {
    const answer = await requestToken(clientAssertion(clinicClient, TOKEN_ENDPOINT, ecKey), 'system/Task.rs api:clinic');
    expect([answer.status, answer.body.scope]).toEqual([200, 'system/Task.rs api:clinic']);
    const tasks = await stack.api('GET', '/api/v1/clinic/tasks', { token: answer.body.access_token });
    expect(tasks.status).toBe(200);
    // Asked for a referrer's scope: none of it is granted.
    expectRefused(await requestToken(clientAssertion(clinicClient, TOKEN_ENDPOINT, ecKey), 'system/Bundle.c'), 400, 'invalid_scope', /system\/Bundle\.c/);
    expectRefused(await requestToken(clientAssertion(clinicClient, TOKEN_ENDPOINT, ecKey), 'system/Task.rs openid'), 400, 'invalid_scope', /openid/);
  });

  it.each([
    ['an expired assertion', { claims: { exp: Math.floor(Date.now() / 1000) - 120, iat: Math.floor(Date.now() / 1000) - 400 } }, /expired/],
    ['exp more than 5 minutes ahead', { claims: { exp: Math.floor(Date.now() / 1000) + 3600 } }, /exp/],
    ['no exp', { claims: { exp: undefined } }, /exp/],
    ['the wrong audience', { claims: { aud: 'https://bedrequest.test/api/v1/token/login' } }, /aud/],
    ['iss other than sub', { claims: { sub: randomUUID() } }, /sub|iss/],
    ['a key the client does not have', { header: { kid: 'no-such-key' } }, /key/],
    ['alg none', { header: { alg: 'none' }, signWith: 'none' as const }, /RS384 or ES384, not "none"/],
    ['HS256 signed with the public key as the secret', { header: { alg: 'HS256' }, signWith: 'hs256-public-key' as const }, /RS384 or ES384, not "HS256"/],
    ['no jti', { claims: { jti: undefined } }, /jti/],
  ])('refuses %s with invalid_client', async (_case, options, description) => {
    expectRefused(await requestToken(clientAssertion(hospitalClient, TOKEN_ENDPOINT, rsaKey, options)), 401, 'invalid_client', description);
  });

  it('refuses a signature by another key under the right kid, an unknown client, and a form that is not one', async () => {
    const impostor = { ...testClientKey('RS384'), kid: rsaKey.kid };
    expectRefused(await requestToken(clientAssertion(hospitalClient, TOKEN_ENDPOINT, impostor)), 401, 'invalid_client', /signature/);
    expectRefused(await requestToken(clientAssertion(randomUUID(), TOKEN_ENDPOINT, rsaKey)), 401, 'invalid_client', /client/);
    const json = await stack.api<OAuthError>('POST', '/api/v1/token/oauth2', { body: { grant_type: 'client_credentials' } });
    expect([json.status, json.body.error]).toEqual([400, 'invalid_request']);
    const password = await stack.api<OAuthError>('POST', '/api/v1/token/oauth2', { body: 'grant_type=password&username=a&password=b', contentType: FORM });
    expect([password.status, password.body.error]).toEqual([400, 'unsupported_grant_type']);
  });

  it('refuses a jti seen before, at this auth and at a second auth instance sharing its Redis', async () => {
    const once = clientAssertion(hospitalClient, TOKEN_ENDPOINT, rsaKey);
    expect((await requestToken(once)).status).toBe(200);
    expectRefused(await requestToken(once), 401, 'invalid_client', /jti/);
    const second = await stack.stack.start('auth-2', 'auth');
    const replay = await fetchExchange(second.url, 'POST', '/api/v1/token/oauth2', { body: clientTokenForm(once), contentType: FORM });
    expect([replay.status, (replay.body as OAuthError).error]).toEqual([401, 'invalid_client']);
    const fresh = await fetchExchange(second.url, 'POST', '/api/v1/token/oauth2', {
      body: clientTokenForm(clientAssertion(hospitalClient, TOKEN_ENDPOINT, rsaKey)),
      contentType: FORM,
    });
    expect(fresh.status).toBe(200);
  });

  it('takes the next key once the JWKS URL serves it, and refuses the key rotated out', async () => {
    servedKeys = [ecKey.jwk, nextEcKey.jwk];
    await waitFor(async () => (await requestToken(clientAssertion(clinicClient, TOKEN_ENDPOINT, nextEcKey))).status === 200, { timeoutMs: 15_000 });
    servedKeys = [nextEcKey.jwk];
    clinicKey = nextEcKey;
    await waitFor(async () => (await requestToken(clientAssertion(clinicClient, TOKEN_ENDPOINT, ecKey))).status === 401, { timeoutMs: 15_000 });
    expectRefused(await requestToken(clientAssertion(clinicClient, TOKEN_ENDPOINT, ecKey)), 401, 'invalid_client', /key/);
    expect((await requestToken(clientAssertion(clinicClient, TOKEN_ENDPOINT, nextEcKey))).status).toBe(200);
  });

  it('refuses, on every guarded route of the OpenAPI document, a client token without the route’s scope: 403 insufficient_scope in the form of its surface', async () => {
    const document = (await stack.api<OpenApiPaths>('GET', '/api/openapi.json')).body;
    const routes = guardedRoutes(document);
    expect(routes.length).toBeGreaterThan(30);
    // A scope no route but the clinic list needs, and for those a scope no clinic-list route needs.
    const narrow = {
      referrer: await tokenOf(hospitalClient, rsaKey, 'api:kliniken'),
      clinic: await tokenOf(clinicClient, clinicKey, 'api:kliniken'),
      referrerOther: await tokenOf(hospitalClient, rsaKey, 'system/AuditEvent.rs'),
      clinicOther: await tokenOf(clinicClient, clinicKey, 'system/AuditEvent.rs'),
    };
    const answers: string[] = [];
    for (const route of routes) {
      const onKliniken = route.path.startsWith('/api/v1/kliniken');
      const token = route.role === 'clinic' ? (onKliniken ? narrow.clinicOther : narrow.clinic) : onKliniken ? narrow.referrerOther : narrow.referrer;
      const path = route.path.replace(/\{[^}]+\}/g, 'x1');
      const body = route.method === 'get' || route.method === 'delete' ? undefined : {};
      const answer = await fetchExchange(stack.gatewayUrl, route.method.toUpperCase(), path, { token, ...(body ? { body } : {}) });
      const error = path.startsWith('/api/v2/fhir')
        ? (answer.body as { issue?: { diagnostics?: string }[] }).issue?.[0]?.diagnostics?.split(':')[0]
        : (answer.body as { error?: string }).error;
      answers.push(`${route.method} ${route.path} ${answer.status} ${error} ${/insufficient_scope/.test(answer.headers.get('www-authenticate') ?? '')}`);
    }
    expect(answers).toEqual(routes.map((route) => `${route.method} ${route.path} 403 insufficient_scope true`));
  });

  it("revokes a disabled client's tokens at the gateway and gives it no more", async () => {
    const token = await tokenOf(hospitalClient, rsaKey, 'system/Task.rs');
    expect((await stack.api('GET', '/api/v2/fhir/Task', { token })).status).toBe(200);
    await stack.admin('client', 'disable', '--id', hospitalClient);
    await waitFor(async () => (await stack.api('GET', '/api/v2/fhir/Task', { token })).status === 401, { timeoutMs: 10_000 });
    expectRefused(await requestToken(clientAssertion(hospitalClient, TOKEN_ENDPOINT, rsaKey)), 401, 'invalid_client', /disabled/);
  });
});

interface OpenApiOperation {
  security?: unknown[];
  responses: Record<string, { description?: string }>;
}
type OpenApiPaths = { paths: Record<string, Record<string, OpenApiOperation>> };

/** Every operation behind the token guard, with the role its 403 names ("Not a clinic token"), else either. */
function guardedRoutes(document: OpenApiPaths): { path: string; method: string; role: 'referrer' | 'clinic' }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method, operation]) => ['get', 'post', 'put', 'delete', 'patch'].includes(method) && (operation.security?.length ?? 0) > 0)
      .map(([method, operation]) => ({
        path,
        method,
        role: /Not a clinic token/.test(operation.responses['403']?.description ?? '') ? ('clinic' as const) : ('referrer' as const),
      })),
  );
}
