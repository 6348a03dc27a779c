// HTTP manners of the public interface, through the whole stack in-process (tools/e2e/stack-harness.ts):
// token responses that are not cached, refresh tokens that are not live, wrong methods, the base
// address, empty and oversized bodies, unknown fields. End-to-end tests live outside the apps, so
// no app imports another.
import { randomUUID } from 'node:crypto';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface OperationOutcome {
  resourceType: 'OperationOutcome';
  issue: { severity: string; code: string; diagnostics: string; expression?: string[] }[];
}
interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

const CLINIC_IK = '510000301';
const REFERRER_IK = '260000301';
const FHIR_BASE = 'https://manners-hospital.example/fhir';

describe('HTTP manners, through the gateway', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;
  const suffix = randomUUID().slice(0, 8);
  const referrerName = `manners-referrer-${suffix}`;
  const taskPath = `/api/v1/clinic/tasks/${randomUUID()}`;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC_IK, 'Rehaklinik Manieren', ['2300']);
    await stack.createReferrer(referrerName, [REFERRER_IK], FHIR_BASE);
    await stack.createClinicUser(`manners-clinic-${suffix}`, CLINIC_IK);
    referrer = await stack.login(referrerName);
    clinic = await stack.login(`manners-clinic-${suffix}`);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const logIn = () => stack.api<TokenPair>('POST', '/api/v1/token/login', { body: { username: referrerName, password: `${referrerName}-secret-pw` } });
  const refresh = (refreshToken: unknown) => stack.api<{ error: string; message: string }>('POST', '/api/v1/token/refresh', { body: { refreshToken } });

  describe('token responses (RFC 6749 §5.1)', () => {
    it('of login and refresh are not to be cached', async () => {
      const login = await logIn();
      const renewed = await refresh(login.body.refreshToken);

      for (const response of [login, renewed]) {
        expect(response.status).toBe(200);
        expect(response.headers.get('cache-control')).toBe('no-store');
        expect(response.headers.get('pragma')).toBe('no-cache');
      }
    });
  });

  describe('answers to a request with an access token', () => {
    it('are never to be cached: they carry patient data or a webhook secret, or say what a party may see', async () => {
      const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
      const answers = [
        await stack.api('POST', '/api/v1/subscriptions', {
          token: referrer,
          body: { eventType: 'AdmissionResponse', callbackUrl: 'https://manners-hospital.example/hook' },
        }),
        await stack.api('GET', '/api/v1/subscriptions', { token: referrer }),
        await stack.api('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer }),
        await stack.api('GET', `/api/v2/fhir/Task/${randomUUID()}`, { token: referrer }),
        await stack.api('GET', '/api/v1/kliniken', { token: referrer }),
        await stack.api('GET', '/api/v1/clinic/tasks', { token: clinic }),
        await stack.api('GET', taskPath, { token: clinic }),
      ];
      expect(answers.map((answer) => [answer.status, answer.headers.get('cache-control')])).toEqual(answers.map((answer) => [answer.status, 'no-store']));
    });
  });

  describe('refresh with anything that is not a live refresh token', () => {
    it('is 401 invalid_refresh_token: an access token, 3,000 characters, a rotated-away token, garbage', async () => {
      const login = await logIn();
      const rotatedAway = login.body.refreshToken;
      expect((await refresh(rotatedAway)).status).toBe(200);

      for (const token of [login.body.accessToken, 'x'.repeat(3000), rotatedAway, 'not a token at all', '']) {
        const response = await refresh(token);
        expect([response.status, response.body.error]).toEqual([401, 'invalid_refresh_token']);
      }
    });

    it('is 400 only for a body without a refreshToken string, naming the field', async () => {
      expect((await stack.api('POST', '/api/v1/token/refresh', { body: {} })).body).toEqual({ error: 'invalid_request', message: 'refreshToken: is required' });
      expect((await refresh(42)).body).toEqual({ error: 'invalid_request', message: 'refreshToken: must be a string' });
      expect((await stack.api('POST', '/api/v1/token/refresh', { body: '{"refreshToken": ' })).status).toBe(400);
    });
  });

  describe('a wrong method on an existing path', () => {
    it.each([
      ['DELETE', '/api/v1/kliniken', 'GET, HEAD, OPTIONS'],
      ['GET', '/api/v1/token/login', 'OPTIONS, POST'],
      ['PATCH', '/api/v1/subscriptions/7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01', 'DELETE, GET, HEAD, OPTIONS, PUT'],
      ['GET', `/api/v1/clinic/tasks/7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01/answer`, 'OPTIONS, POST'],
      ['DELETE', '/api/v1/clinic/capacity', 'GET, HEAD, OPTIONS, PUT'],
      ['POST', '/', 'GET, HEAD, OPTIONS'],
    ])('%s %s is 405 method_not_allowed with Allow: %s, before any token is asked for', async (method, path, allow) => {
      for (const token of [undefined, method === 'GET' && path.includes('/clinic/') ? clinic : referrer]) {
        const response = await stack.api<{ error: string; message: string }>(method, path, token ? { token } : {});

        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe(allow);
        expect(response.body).toEqual({ error: 'method_not_allowed', message: `${method} is not allowed on ${path}; it takes ${allow}` });
      }
    });

    it('is 405 with an OperationOutcome on FHIR paths', async () => {
      for (const [method, path, allow] of [
        ['PUT', '/api/v2/fhir/Bundle', 'OPTIONS, POST'],
        ['GET', '/api/v2/fhir/Bundle', 'OPTIONS, POST'],
        ['DELETE', '/api/v2/fhir/Task/7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01', 'GET, HEAD, OPTIONS'],
      ] as const) {
        const response = await stack.api<OperationOutcome>(method, path, { token: referrer });

        expect(response.status).toBe(405);
        expect(response.headers.get('allow')).toBe(allow);
        expect(response.headers.get('content-type')).toMatch(/^application\/fhir\+json/);
        expect(response.body).toEqual({
          resourceType: 'OperationOutcome',
          issue: [{ severity: 'error', code: 'not-supported', diagnostics: `${method} is not allowed on ${path}; it takes ${allow}` }],
        });
      }
    });

    it('OPTIONS is 204 with Allow, without a token; on an unknown path 404', async () => {
      const options = await stack.api('OPTIONS', '/api/v1/subscriptions');
      expect([options.status, options.headers.get('allow'), options.body]).toEqual([204, 'GET, HEAD, OPTIONS, POST', undefined]);

      const unknown = await stack.api('OPTIONS', '/api/v1/nothing-here');
      expect([unknown.status, unknown.body]).toEqual([404, { error: 'not_found', message: 'no such endpoint: OPTIONS /api/v1/nothing-here' }]);
    });
  });

  describe('unknown paths', () => {
    it('are 404 quoting the path as sent, shortened', async () => {
      const kliniken = await stack.api<{ message: string }>('GET', '/api/v1/kliniken/510000301', { token: referrer });
      expect([kliniken.status, kliniken.body]).toEqual([404, { error: 'not_found', message: 'no such endpoint: GET /api/v1/kliniken/510000301' }]);

      const long = await stack.api<{ message: string }>('GET', `/api/v1/${'x'.repeat(5000)}`);
      expect(long.status).toBe(404);
      expect(long.body.message).toBe(`no such endpoint: GET /api/v1/${'x'.repeat(192)}…`);
    });

    it("are JSON on the internal port too, never express's HTML", async () => {
      const response = await fetch(`${stack.stack.probeUrl('gateway')}/health/nothing-here`);

      expect([response.status, response.headers.get('content-type'), await response.json()]).toEqual([
        404,
        'application/json; charset=utf-8',
        { error: 'not_found', message: 'no such endpoint: GET /health/nothing-here' },
      ]);
    });
  });

  describe('the base address', () => {
    it('GET / answers JSON: the service, its version and where to begin', async () => {
      const response = await stack.api<Record<string, unknown>>('GET', '/');

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.body).toEqual({
        service: 'Bed Occupancy Request Service',
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        links: { openapi: '/api/openapi.json', fhirBase: '/api/v2/fhir', capabilityStatement: '/api/v2/fhir/metadata', tokenStatus: '/api/v1/token/status' },
        documentation: expect.any(String),
      });
    });

    it('HEAD / is 200 without a body, HEAD of an unknown path 404', async () => {
      const head = await fetch(`${stack.gatewayUrl}/`, { method: 'HEAD' });
      expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([200, 'application/json; charset=utf-8', '']);
      expect((await fetch(`${stack.gatewayUrl}/nothing-here`, { method: 'HEAD' })).status).toBe(404);
    });
  });

  describe('an empty body', () => {
    it.each([
      ['POST', '/api/v1/token/login', undefined],
      ['POST', '/api/v1/token/refresh', undefined],
      ['POST', `${taskPath}/answer`, 'clinic'],
      ['PUT', '/api/v1/clinic/capacity', 'clinic'],
      ['POST', '/api/v1/subscriptions', 'referrer'],
    ] as const)('on %s %s is 400 "the request body is empty"', async (method, path, party) => {
      const token = party === 'clinic' ? clinic : party === 'referrer' ? referrer : undefined;
      for (const headers of [{}, { 'content-type': 'application/json' }] as Record<string, string>[]) {
        const response = await stack.api(method, path, { ...(token ? { token } : {}), headers });

        expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message: 'the request body is empty' }]);
      }
    });

    it('on POST /api/v2/fhir/Bundle is 400 with an OperationOutcome, not a complaint about the content type', async () => {
      const response = await stack.api<OperationOutcome>('POST', '/api/v2/fhir/Bundle', { token: referrer });

      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        resourceType: 'OperationOutcome',
        issue: [{ severity: 'error', code: 'invalid', diagnostics: 'the request body is empty' }],
      });
    });

    it('differs from a body of another content type: 415', async () => {
      const response = await stack.api('POST', `${taskPath}/answer`, {
        token: clinic,
        body: 'businessStatus=accepted',
        contentType: 'application/x-www-form-urlencoded',
      });

      expect([response.status, response.body]).toEqual([415, { error: 'unsupported_media_type', message: 'Content-Type must be application/json' }]);
    });
  });

  describe('the clinic answer', () => {
    const answer = (body: unknown) => stack.api<{ error: string; message: string }>('POST', `${taskPath}/answer`, { token: clinic, body });

    it('with a note over 4000 characters is 400 naming the note, however long it is', async () => {
      for (const length of [4001, 200_000, 2_000_000]) {
        const response = await answer({ businessStatus: 'accepted', note: 'x'.repeat(length) });

        expect(response.status).toBe(400);
        expect(response.body).toMatchObject({ error: 'invalid_request', message: expect.stringMatching(/^note: must be at most 4000 characters/) });
      }
    });

    it('with an unknown field is 400 naming it, and every refused field is named', async () => {
      expect((await answer({ businessStatus: 'accepted', notes: 'Bitte Befund nachreichen' })).body).toEqual({
        error: 'invalid_request',
        message: 'notes: not allowed',
      });
      expect((await answer({ businessStatus: 'maybe', note: 42 })).body).toEqual({
        error: 'invalid_request',
        message: 'businessStatus: must be one of accepted, declined, query, more-data-required; note: must be a string',
      });
    });
  });

  describe('unknown fields in other /api/v1 bodies', () => {
    it('are 400 naming them: login, refresh, capacity', async () => {
      const login = await stack.api('POST', '/api/v1/token/login', { body: { username: referrerName, password: `${referrerName}-secret-pw`, remember: true } });
      expect([login.status, login.body]).toEqual([400, { error: 'invalid_request', message: 'remember: not allowed' }]);

      const { refreshToken } = (await logIn()).body;
      const renewal = await stack.api('POST', '/api/v1/token/refresh', { body: { refreshToken, grant_type: 'refresh_token' } });
      expect([renewal.status, renewal.body]).toEqual([400, { error: 'invalid_request', message: 'grant_type: not allowed' }]);
      expect((await refresh(refreshToken)).status).toBe(200);

      const capacity = await stack.api('PUT', '/api/v1/clinic/capacity', {
        token: clinic,
        body: { department: '2300', date: '2026-12-01', freeBeds: 2, wardName: 'Station 3' },
      });
      expect([capacity.status, capacity.body]).toEqual([400, { error: 'invalid_request', message: 'wardName: not allowed' }]);
    });
  });
});
