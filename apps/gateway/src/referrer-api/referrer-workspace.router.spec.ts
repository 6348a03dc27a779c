import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import { createTokenVerifier, requireToken } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, clinicClaims, localKeys, newSigningKey, type TestSigningKey } from '@bedrequest/tokens/testing';
import { allowedMethods } from '../allowed-methods';
import { errorHandler, unknownPath } from '../http-errors';
import { ReferrerWorkspaceClient, referrerWorkspaceRouter } from './referrer-workspace.router';

const IDENTIFIER = 'https://demo-hospital.example/fhir/ServiceRequest/7f3c';
const DRAFT_ID = '6a1f1c3e-9a4b-4c1d-8e2f-3b4c5d6e7f80';
const draft = { id: DRAFT_ID, label: 'Frau M.', content: { patient: { family: 'Muster' } }, savedAt: '2026-12-07T00:30:00.000Z', savedByName: 'Anna Aufnahme' };

/**
 * The gateway side of `/api/v1/referrer/…`, behind the referrer-role guard as start.ts mounts it,
 * with a stand-in for intake's internal API (an HTTP server in this process, called through the
 * real ReferrerWorkspaceClient). Intake's own rules are tested in
 * apps/intake/src/referrer-workspace/referrer-workspace.int.spec.ts.
 */
describe("the hospital's own data: /api/v1/referrer", () => {
  let key: TestSigningKey;
  let referrer: string;
  let clinic: string;
  let intake: Server;
  let intakeUrl: string;
  let calls: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  let answer: { status: number; body: string };
  let app: express.Express;

  beforeAll(async () => {
    key = await newSigningKey();
    referrer = await accessToken(key);
    clinic = await accessToken(key, { claims: clinicClaims });
    intake = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        if (answer.status === 204) return void res.writeHead(204).end();
        res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => intake.listen(0, '127.0.0.1', resolve));
    intakeUrl = `http://127.0.0.1:${(intake.address() as AddressInfo).port}`;
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
    app = express();
    app.use(allowedMethods(app));
    app.use(
      '/api/v1/referrer',
      requireToken({ verifier, roles: ['referrer'] }),
      referrerWorkspaceRouter({ workspace: new ReferrerWorkspaceClient(intakeUrl, 2_000), logger: silentLogger() }),
    );
    app.use(unknownPath);
    app.use(errorHandler(silentLogger()));
  });
  beforeEach(() => {
    calls = [];
    answer = { status: 200, body: '{}' };
  });
  afterAll(() => {
    intake.closeAllConnections();
    return new Promise((resolve) => intake.close(resolve));
  });

  const as = (token: string) => ({
    put: (path: string) => request(app).put(`/api/v1/referrer${path}`).set('authorization', `Bearer ${token}`),
    post: (path: string) => request(app).post(`/api/v1/referrer${path}`).set('authorization', `Bearer ${token}`),
    get: (path: string) => request(app).get(`/api/v1/referrer${path}`).set('authorization', `Bearer ${token}`),
    delete: (path: string) => request(app).delete(`/api/v1/referrer${path}`).set('authorization', `Bearer ${token}`),
  });

  it("sets a case number through intake with the referrer's token, the number trimmed, and answers intake's view uncached", async () => {
    const view = { identifier: IDENTIFIER, caseNumber: 'FN-2026/0815', updatedAt: '2026-12-07T00:30:00.000Z', updatedByName: 'Anna Aufnahme' };
    answer = { status: 200, body: JSON.stringify(view) };

    const response = await as(referrer).put('/case-numbers').set('x-correlation-id', 'case-1').send({ identifier: IDENTIFIER, caseNumber: ' FN-2026/0815 ' });

    expect([response.status, response.body, response.headers['cache-control']]).toEqual([200, view, 'no-store']);
    expect(calls).toEqual([
      {
        method: 'PUT',
        url: '/internal/referrer-workspace/case-numbers',
        headers: expect.objectContaining({ authorization: `Bearer ${referrer}`, 'x-correlation-id': 'case-1' }),
        body: JSON.stringify({ identifier: IDENTIFIER, caseNumber: 'FN-2026/0815' }),
      },
    ]);
  });

  it('searches by case number or identifiers with a POST, so that the number stands in no URL', async () => {
    answer = { status: 200, body: JSON.stringify({ items: [] }) };

    expect((await as(referrer).post('/case-numbers/_search').send({ caseNumber: 'fn-2026/0815' })).status).toBe(200);
    expect(
      (
        await as(referrer)
          .post('/case-numbers/_search')
          .send({ identifiers: [IDENTIFIER] })
      ).body,
    ).toEqual({ items: [] });
    expect(calls.map((call) => [call.method, call.url, call.body])).toEqual([
      ['POST', '/internal/referrer-workspace/case-numbers/_search', '{"caseNumber":"fn-2026/0815"}'],
      ['POST', '/internal/referrer-workspace/case-numbers/_search', JSON.stringify({ identifiers: [IDENTIFIER] })],
    ]);
  });

  it('forwards every draft operation to its path in intake, and passes 201, 204 and a 409 on', async () => {
    answer = { status: 201, body: JSON.stringify(draft) };
    const created = await as(referrer).post('/drafts').send({ label: draft.label, content: draft.content });
    expect([created.status, created.body]).toEqual([201, draft]);

    answer = { status: 200, body: JSON.stringify(draft) };
    await as(referrer).get('/drafts');
    await as(referrer).get(`/drafts/${DRAFT_ID}`);
    await as(referrer).put(`/drafts/${DRAFT_ID}`).send({ content: draft.content });
    answer = { status: 204, body: '' };
    const deleted = await as(referrer).delete(`/drafts/${DRAFT_ID}`);
    expect([deleted.status, deleted.headers['cache-control']]).toEqual([204, 'no-store']);

    answer = { status: 409, body: JSON.stringify({ error: 'conflict', message: 'your party keeps 100 drafts already' }) };
    const full = await as(referrer).post('/drafts').send({ content: {} });
    expect([full.status, full.body]).toEqual([409, { error: 'conflict', message: 'your party keeps 100 drafts already' }]);

    expect(calls.map((call) => [call.method, call.url])).toEqual([
      ['POST', '/internal/referrer-workspace/drafts'],
      ['GET', '/internal/referrer-workspace/drafts'],
      ['GET', `/internal/referrer-workspace/drafts/${DRAFT_ID}`],
      ['PUT', `/internal/referrer-workspace/drafts/${DRAFT_ID}`],
      ['DELETE', `/internal/referrer-workspace/drafts/${DRAFT_ID}`],
      ['POST', '/internal/referrer-workspace/drafts'],
    ]);
  });

  it('answers 403 to a clinic token on every path, without asking intake', async () => {
    const clinicCalls = [
      as(clinic).put('/case-numbers').send({ identifier: IDENTIFIER, caseNumber: 'FN-1' }),
      as(clinic).post('/case-numbers/_search').send({ caseNumber: 'FN-1' }),
      as(clinic).get('/drafts'),
      as(clinic).post('/drafts').send({ content: {} }),
      as(clinic).get(`/drafts/${DRAFT_ID}`),
      as(clinic).delete(`/drafts/${DRAFT_ID}`),
      as(clinic).get('/settings'),
      as(clinic)
        .put('/settings')
        .send({ answerDeadline: { workingDays: 2, holidays: 'DE' } }),
    ];
    for (const response of await Promise.all(clinicCalls)) {
      expect([response.status, response.body.error]).toEqual([403, 'forbidden']);
    }
    expect(calls).toEqual([]);
    expect((await request(app).get('/api/v1/referrer/drafts')).status).toBe(401);
  });

  it.each([
    ['no case number', '/case-numbers', { identifier: IDENTIFIER }, 'caseNumber: is required'],
    ['a case number of spaces', '/case-numbers', { identifier: IDENTIFIER, caseNumber: '   ' }, 'caseNumber: must not be empty'],
    ['a case number of 65 characters', '/case-numbers', { identifier: IDENTIFIER, caseNumber: '1'.repeat(65) }, 'caseNumber: must be at most 64 characters'],
    [
      'a case number with a semicolon',
      '/case-numbers',
      { identifier: IDENTIFIER, caseNumber: 'FN;1' },
      'caseNumber: must be letters, digits, spaces and . - / _ : only',
    ],
    ['an identifier of 1025 characters', '/case-numbers', { identifier: 'u'.repeat(1025), caseNumber: 'FN-1' }, 'identifier: must be at most 1024 characters'],
    ['an identifier with a space', '/case-numbers', { identifier: 'urn:x y', caseNumber: 'FN-1' }, 'identifier: must be a URI: printable ASCII without spaces'],
    ['an unknown field', '/case-numbers', { identifier: IDENTIFIER, caseNumber: 'FN-1', note: 'x' }, 'note: not allowed'],
  ])('answers 400 invalid_request for a PUT with %s, without asking intake', async (_what, path, body, message) => {
    const response = await as(referrer).put(path).send(body);

    expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message }]);
    expect(calls).toEqual([]);
  });

  it.each([
    ['both a case number and identifiers', '/case-numbers/_search', { caseNumber: 'FN-1', identifiers: [IDENTIFIER] }],
    ['neither', '/case-numbers/_search', {}],
    ['no identifiers', '/case-numbers/_search', { identifiers: [] }],
    ['501 identifiers', '/case-numbers/_search', { identifiers: Array.from({ length: 501 }, (_, n) => `${IDENTIFIER}${n}`) }],
    ['a draft without content', '/drafts', { label: 'x' }],
    ['a draft whose content is an array', '/drafts', { content: [] }],
    ['a label of 201 characters', '/drafts', { label: 'x'.repeat(201), content: {} }],
    ['content over 256 KiB', '/drafts', { content: { text: 'x'.repeat(256 * 1024) } }],
  ])('answers 400 invalid_request for a POST with %s, without asking intake', async (_what, path, body) => {
    const response = await as(referrer).post(path).send(body);

    expect([response.status, response.body.error]).toEqual([400, 'invalid_request']);
    expect(calls).toEqual([]);
  });

  it("reads and sets the party's default answer deadline through intake, and refuses a malformed one without asking it", async () => {
    const settings = { answerDeadline: { workingDays: 3, holidays: 'DE-BW' } };
    answer = { status: 200, body: JSON.stringify(settings) };

    const read = await as(referrer).get('/settings');
    const written = await as(referrer).put('/settings').send(settings);

    expect([read.status, read.body, written.status, written.body]).toEqual([200, settings, 200, settings]);
    expect(calls.map((call) => [call.method, call.url, call.body])).toEqual([
      ['GET', '/internal/referrer-workspace/settings', ''],
      ['PUT', '/internal/referrer-workspace/settings', JSON.stringify(settings)],
    ]);
    expect(calls[0]?.headers.authorization).toBe(`Bearer ${referrer}`);
    calls = [];
    for (const body of [
      { answerDeadline: { workingDays: 0, holidays: 'DE' } },
      { answerDeadline: { workingDays: 11, holidays: 'DE' } },
      { answerDeadline: { workingDays: 2, holidays: 'AT' } },
      { answerDeadline: { workingDays: 2 } },
    ]) {
      const response = await as(referrer).put('/settings').send(body);
      expect([response.status, response.body.error]).toEqual([400, 'invalid_request']);
    }
    expect(calls).toEqual([]);
  });

  it('answers 404 for a draft id that is not one, without asking intake, and 415 for a body that is not JSON', async () => {
    for (const response of [
      await as(referrer).get('/drafts/42'),
      await as(referrer).delete('/drafts/not-a-draft'),
      await as(referrer).put('/drafts/x').send({ content: {} }),
    ]) {
      expect([response.status, response.body]).toEqual([404, { error: 'not_found', message: 'no such draft' }]);
    }
    const text = await as(referrer).post('/drafts').set('content-type', 'text/plain').send('FN-1');
    expect(text.status).toBe(415);
    expect(calls).toEqual([]);
  });

  it("passes intake's 404 for another party's draft on, and answers 503 with Retry-After when intake is unreachable", async () => {
    answer = { status: 404, body: JSON.stringify({ error: 'not_found', message: 'no such draft' }) };
    const missing = await as(referrer).get(`/drafts/${randomUUID()}`);
    expect([missing.status, missing.body]).toEqual([404, { error: 'not_found', message: 'no such draft' }]);

    const unreachable = express().use(
      '/api/v1/referrer',
      (_req, res, next) => {
        res.locals.principal = { partyId: 'p', userId: 'u', role: 'referrer', ikNumbers: [] };
        res.locals.accessToken = referrer;
        next();
      },
      referrerWorkspaceRouter({ workspace: new ReferrerWorkspaceClient('http://127.0.0.1:1', 1_000), logger: silentLogger() }),
    );
    const down = await request(unreachable).get('/api/v1/referrer/drafts');
    expect([down.status, down.body.error, down.headers['retry-after']]).toEqual([503, 'unavailable', expect.stringMatching(/^\d+$/)]);
  });

  it('answers 405 with Allow for a method a path does not take', async () => {
    const response = await request(app).delete('/api/v1/referrer/case-numbers');

    expect([response.status, response.headers['allow']]).toEqual([405, 'OPTIONS, PUT']);
  });
});
