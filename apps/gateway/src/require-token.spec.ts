import express from 'express';
import request from 'supertest';
import { createTokenVerifier, principalOf, remoteSigningKeys, requireScope, requireToken, type Role, type TokenVerifier } from '@bedrequest/tokens';
import {
  AUDIENCE,
  ISSUER,
  SERVICE_AUDIENCE,
  accessToken,
  clinicClaims,
  localKeys,
  newSigningKey,
  referrerClaims,
  serviceToken,
  type TestSigningKey,
} from '@bedrequest/tokens/testing';
import { silentLogger } from '@bedrequest/testing';
import { errorHandler } from './http-errors';

/** A gateway-like app: a referrer route on /api/v1 and /api/v2/fhir, a clinic route, an any-role route. */
function appWith(verifier: TokenVerifier) {
  const app = express();
  const route = (roles: Role[]) => [
    requireToken({ verifier, roles }),
    (_req: express.Request, res: express.Response) => {
      res.json(principalOf(res));
    },
  ];
  app.get('/api/v1/subscriptions', ...route(['referrer']));
  app.post('/api/v2/fhir/Bundle', ...route(['referrer']));
  app.get('/api/v1/clinic/tasks', ...route(['clinic']));
  app.get('/api/v1/kliniken', ...route(['referrer', 'clinic']));
  app.get('/api/v2/fhir/Task', requireToken({ verifier, roles: ['referrer', 'clinic'] }), requireScope('Task.s'), (_req, res) => {
    res.json({ searched: true });
  });
  app.get('/api/v1/party/users', requireToken({ verifier, roles: ['referrer', 'clinic'] }), requireScope('api:party'), (_req, res) => {
    res.json({ listed: true });
  });
  app.use(errorHandler(silentLogger()));
  return app;
}

describe("the gateway's token guard (requireToken with the gateway's error answers)", () => {
  let key: TestSigningKey;
  let app: express.Express;

  beforeAll(async () => {
    key = await newSigningKey();
    app = appWith(createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE }));
  });

  it('lets a token of an allowed role through and hands the route its principal', async () => {
    const token = await accessToken(key, { sub: 'referrer-1' });

    const response = await request(app).get('/api/v1/subscriptions').set('Authorization', `Bearer ${token}`);

    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      partyId: 'referrer-1',
      userId: 'referrer-1',
      role: 'referrer',
      ikNumbers: ['260000001', '260000002'],
      fhirBase: 'https://demo-hospital.example/fhir',
    });
  });

  it('lets both roles read the clinic list', async () => {
    for (const claims of [undefined, clinicClaims]) {
      const token = await accessToken(key, { claims });
      expect((await request(app).get('/api/v1/kliniken').set('Authorization', `Bearer ${token}`)).status).toBe(200);
    }
  });

  it('answers 401 with WWW-Authenticate and an error body when the header is missing', async () => {
    const response = await request(app).get('/api/v1/kliniken');

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="bedrequest"');
    expect(response.body).toEqual({ error: 'unauthorized', message: 'a bearer access token is required' });
  });

  it.each(['Basic dXNlcjpwYXNz', 'Bearer', 'Bearer not a token'])('answers 401 for the header "%s"', async (header) => {
    const response = await request(app).get('/api/v1/kliniken').set('Authorization', header);

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer /);
  });

  it('answers 401 with error="invalid_token" for a token that fails verification', async () => {
    const stranger = await newSigningKey(key.kid);

    const response = await request(app)
      .get('/api/v1/kliniken')
      .set('Authorization', `Bearer ${await accessToken(stranger)}`);

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
    expect(response.body).toEqual({ error: 'unauthorized', message: 'the access token is invalid' });
  });

  it('answers a FHIR path with an OperationOutcome for 401', async () => {
    const response = await request(app).post('/api/v2/fhir/Bundle');

    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/fhir\+json/);
    expect(response.headers['www-authenticate']).toBe('Bearer realm="bedrequest"');
    expect(JSON.parse(response.text)).toEqual({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'login', diagnostics: 'a bearer access token is required' }],
    });
  });

  it('answers 403 with an OperationOutcome when a clinic token posts a bundle', async () => {
    const token = await accessToken(key, { claims: clinicClaims });

    const response = await request(app).post('/api/v2/fhir/Bundle').set('Authorization', `Bearer ${token}`);

    expect(response.status).toBe(403);
    expect(JSON.parse(response.text)).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'forbidden' }] });
  });

  it('answers 403 with an error body when a clinic token manages subscriptions', async () => {
    const token = await accessToken(key, { claims: clinicClaims });

    const response = await request(app).get('/api/v1/subscriptions').set('Authorization', `Bearer ${token}`);

    expect(response.status).toBe(403);
    expect(response.body).toEqual({ error: 'forbidden', message: 'a clinic token may not use this endpoint' });
  });

  it('answers 403 when a referrer token uses the clinic API', async () => {
    const token = await accessToken(key);

    const response = await request(app).get('/api/v1/clinic/tasks').set('Authorization', `Bearer ${token}`);

    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ error: 'forbidden' });
  });

  it("answers 401 for a service token, even from a verifier that knows the services' audience", async () => {
    const lenient = appWith(createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, serviceAudience: SERVICE_AUDIENCE }));
    const strict = appWith(createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE }));
    const token = await serviceToken(key, 'gateway');

    expect((await request(strict).get('/api/v1/kliniken').set('Authorization', `Bearer ${token}`)).status).toBe(401);
    expect(await request(lenient).get('/api/v1/kliniken').set('Authorization', `Bearer ${token}`)).toMatchObject({ status: 403, body: { error: 'forbidden' } });
  });

  it('answers 503 with Retry-After when the signing keys cannot be fetched', async () => {
    const unreachable = createTokenVerifier({
      keys: remoteSigningKeys(new URL('http://127.0.0.1:1/internal/jwks')),
      issuer: ISSUER,
      audience: AUDIENCE,
    });

    const response = await request(appWith(unreachable))
      .get('/api/v1/kliniken')
      .set('Authorization', `Bearer ${await accessToken(key)}`);

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toMatchObject({ error: 'unavailable' });
  });
});

describe("a system client's scopes (requireScope after requireToken)", () => {
  let key: TestSigningKey;
  let app: express.Express;
  const clientToken = (scope: string) =>
    accessToken(key, { sub: 'referrer-1', claims: { ...referrerClaims, act: { sub: 'client:c-1', name: 'KIS' }, scope, client_id: 'c-1' } });

  beforeAll(async () => {
    key = await newSigningKey();
    app = appWith(createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE }));
  });

  it("lets a token through with the scope that grants the route, and a person's token (no scope) always", async () => {
    const withScope = await request(app)
      .get('/api/v2/fhir/Task')
      .set('Authorization', `Bearer ${await clientToken('system/Task.rs')}`);
    expect(withScope.status).toBe(200);
    const person = await request(app)
      .get('/api/v2/fhir/Task')
      .set('Authorization', `Bearer ${await accessToken(key, { sub: 'referrer-1' })}`);
    expect(person.status).toBe(200);
  });

  it('refuses a token without it: 403 insufficient_scope, an OperationOutcome on FHIR paths, {error} on /api/v1, WWW-Authenticate naming the scope', async () => {
    const readOnly = await clientToken('system/Task.r api:kliniken');
    const fhir = await request(app).get('/api/v2/fhir/Task').set('Authorization', `Bearer ${readOnly}`);
    expect(fhir.status).toBe(403);
    expect(fhir.headers['www-authenticate']).toBe('Bearer realm="bedrequest", error="insufficient_scope", scope="system/Task.s"');
    expect(fhir.body).toMatchObject({
      resourceType: 'OperationOutcome',
      issue: [{ code: 'forbidden', diagnostics: 'insufficient_scope: this token was not granted system/Task.s' }],
    });

    const api = await request(app).get('/api/v1/party/users').set('Authorization', `Bearer ${readOnly}`);
    expect(api.status).toBe(403);
    expect(api.body).toEqual({ error: 'insufficient_scope', message: 'insufficient_scope: this token was not granted api:party' });
    expect(api.headers['www-authenticate']).toContain('scope="api:party"');
  });
});
