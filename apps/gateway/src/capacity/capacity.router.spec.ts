import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { ClinicCapacityClient } from './capacity.client';
import { capacityRouter } from './capacity.router';

const clinic: Principal = { partyId: 'clinic-user-1', userId: 'clinic-user-1', role: 'clinic', ikNumbers: ['510000001'] };
const bedCount = { department: '2300', date: '2026-12-01', freeBeds: 3 };

/**
 * The clinic's bed counts, with a stand-in for routing's internal API (an HTTP server in this
 * process, called through the real ClinicCapacityClient). Routing's own rules are tested in
 * apps/routing/src/beds/capacity.router.int.spec.ts and
 * apps/routing/src/registry/automatic-answers.router.int.spec.ts.
 */
describe('bed counts and automatic answers: /api/v1/clinic/capacity', () => {
  let routing: Server;
  let routingUrl: string;
  let calls: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  let answer: { status: number; body: string; contentType?: string };

  beforeAll(async () => {
    routing = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => routing.listen(0, '127.0.0.1', resolve));
    routingUrl = `http://127.0.0.1:${(routing.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    calls = [];
    answer = { status: 200, body: '{}' };
  });
  afterAll(() => {
    routing.closeAllConnections();
    return new Promise((resolve) => routing.close(resolve));
  });

  const gateway = (url = routingUrl) =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = clinic;
        res.locals.accessToken = 'the-clinics-token';
        next();
      })
      .use('/api/v1/clinic/capacity', capacityRouter({ capacity: new ClinicCapacityClient(url, 2_000), logger: silentLogger() }));

  describe('PUT', () => {
    it("publishes the count for the IK of the clinic's token and answers routing's figures", async () => {
      const stored = { ...bedCount, specialty: 'orthopedics', held: 0, reserved: 1, available: 2 };
      answer = { status: 200, body: JSON.stringify(stored) };

      const response = await request(gateway()).put('/api/v1/clinic/capacity').set('x-correlation-id', 'beds-1').send(bedCount);

      expect(response.status).toBe(200);
      expect(response.body).toEqual(stored);
      expect(calls).toEqual([
        {
          method: 'PUT',
          url: '/internal/clinics/510000001/capacity',
          headers: expect.objectContaining({ authorization: 'Bearer the-clinics-token', 'x-correlation-id': 'beds-1', 'content-type': 'application/json' }),
          body: JSON.stringify(bedCount),
        },
      ]);
    });

    it.each([
      ['a department key that is not 4 digits', { ...bedCount, department: '23' }],
      ['a date that is not YYYY-MM-DD', { ...bedCount, date: '1.12.2026' }],
      ['a negative count', { ...bedCount, freeBeds: -1 }],
      ['a fractional count', { ...bedCount, freeBeds: 1.5 }],
      ['a count as a string', { ...bedCount, freeBeds: '3' }],
      ['a missing field', { department: '2300', date: '2026-12-01' }],
      ['an unknown field', { ...bedCount, ik: '510000002' }],
      ['an array', [bedCount]],
    ])('answers 400 invalid_request without asking routing for %s', async (_, body) => {
      const response = await request(gateway()).put('/api/v1/clinic/capacity').send(body);

      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_request', message: expect.any(String) });
      expect(calls).toEqual([]);
    });

    it('names the refused fields in the message', async () => {
      const response = await request(gateway()).put('/api/v1/clinic/capacity').send({ department: '23', date: '2026-12-01', freeBeds: -1, ik: '510000002' });

      expect(response.body).toEqual({
        error: 'invalid_request',
        message: 'department: must be a department key of 4 digits, e.g. "2300"; freeBeds: must be a whole number from 0; ik: not allowed',
      });
    });

    it('answers 400 for a body that is not JSON', async () => {
      const response = await request(gateway()).put('/api/v1/clinic/capacity').set('content-type', 'application/json').send('{"department":');

      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_request', message: expect.any(String) });
      expect(calls).toEqual([]);
    });

    it('answers 413 for a body over 16 KiB', async () => {
      const response = await request(gateway())
        .put('/api/v1/clinic/capacity')
        .send({ ...bedCount, padding: 'x'.repeat(17 * 1024) });

      expect(response.status).toBe(413);
      expect(calls).toEqual([]);
    });
  });

  describe('GET', () => {
    it("lists the clinic's counts for the range", async () => {
      const items = [{ ...bedCount, specialty: 'orthopedics', held: 0, reserved: 0, available: 3 }];
      answer = { status: 200, body: JSON.stringify({ items }) };

      const response = await request(gateway()).get('/api/v1/clinic/capacity?from=2026-12-01&to=2026-12-31');

      expect(response.status).toBe(200);
      expect(response.body).toEqual({ items });
      expect(calls[0]).toMatchObject({ method: 'GET', url: '/internal/clinics/510000001/capacity?from=2026-12-01&to=2026-12-31' });
    });

    it('lists without a range', async () => {
      answer = { status: 200, body: '{"items":[]}' };

      expect((await request(gateway()).get('/api/v1/clinic/capacity')).status).toBe(200);
      expect(calls[0]?.url).toBe('/internal/clinics/510000001/capacity');
    });

    it.each(['from=tomorrow', 'to=2026-12', 'from=2026-12-01&from=2026-12-02'])('answers 400 without asking routing for %s', async (query) => {
      const response = await request(gateway()).get(`/api/v1/clinic/capacity?${query}`);

      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_request', message: expect.any(String) });
      expect(calls).toEqual([]);
    });
  });

  describe('automatic answers: /auto-answer', () => {
    it("reads the setting of the IK of the clinic's token, with the clinic's token", async () => {
      answer = { status: 200, body: '{"enabled":false}' };

      const response = await request(gateway()).get('/api/v1/clinic/capacity/auto-answer').set('x-correlation-id', 'auto-1');

      expect(response.status).toBe(200);
      expect(response.body).toEqual({ enabled: false });
      expect(calls).toEqual([
        {
          method: 'GET',
          url: '/internal/clinics/510000001/auto-answer',
          headers: expect.objectContaining({ authorization: 'Bearer the-clinics-token', 'x-correlation-id': 'auto-1' }),
          body: '',
        },
      ]);
    });

    it("switches it for the IK of the clinic's token and answers the new setting", async () => {
      answer = { status: 200, body: '{"enabled":true}' };

      const response = await request(gateway()).put('/api/v1/clinic/capacity/auto-answer').send({ enabled: true });

      expect(response.status).toBe(200);
      expect(response.body).toEqual({ enabled: true });
      expect(calls).toEqual([
        {
          method: 'PUT',
          url: '/internal/clinics/510000001/auto-answer',
          headers: expect.objectContaining({ authorization: 'Bearer the-clinics-token', 'content-type': 'application/json' }),
          body: '{"enabled":true}',
        },
      ]);
    });

    it.each([
      ['a string', { enabled: 'true' }, 'enabled: must be true or false'],
      ['a number', { enabled: 1 }, 'enabled: must be true or false'],
      ['no switch', {}, 'enabled: is required'],
      ['an unknown field', { enabled: true, ik: '510000002' }, 'ik: not allowed'],
      ['an array', [{ enabled: true }], expect.any(String)],
    ])('answers 400 invalid_request without asking routing for %s', async (_, body, message) => {
      const response = await request(gateway()).put('/api/v1/clinic/capacity/auto-answer').send(body);

      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_request', message });
      expect(calls).toEqual([]);
    });

    it('answers 400 for an empty body and 415 for a form', async () => {
      expect((await request(gateway()).put('/api/v1/clinic/capacity/auto-answer')).status).toBe(400);
      expect((await request(gateway()).put('/api/v1/clinic/capacity/auto-answer').type('form').send('enabled=true')).status).toBe(415);
      expect(calls).toEqual([]);
    });

    it('answers 404 when the clinic is not a participating clinic', async () => {
      answer = { status: 404, body: JSON.stringify({ error: 'not_found', message: 'no participating clinic with IK 510000001' }) };

      const response = await request(gateway()).put('/api/v1/clinic/capacity/auto-answer').send({ enabled: true });

      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'not_found', message: expect.any(String) });
    });

    it('answers 503 with Retry-After when routing answers outside its contract', async () => {
      answer = { status: 200, body: '{"enabled":"yes"}' };

      const response = await request(gateway()).get('/api/v1/clinic/capacity/auto-answer');

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
    });
  });

  it("reads and switches whether referrers see the counts, for the IK of the clinic's token, with exactly {shownToReferrers}", async () => {
    answer = { status: 200, body: '{"shownToReferrers":true}' };

    const switched = await request(gateway()).put('/api/v1/clinic/capacity/visibility').send({ shownToReferrers: true });
    const read = await request(gateway()).get('/api/v1/clinic/capacity/visibility');
    const refused = await request(gateway()).put('/api/v1/clinic/capacity/visibility').send({ shownToReferrers: 'yes' });

    expect([switched.status, switched.body, read.status, read.body]).toEqual([200, { shownToReferrers: true }, 200, { shownToReferrers: true }]);
    expect(refused.body).toEqual({ error: 'invalid_request', message: 'shownToReferrers: must be true or false' });
    expect(calls.map(({ method, url, headers, body }) => [method, url, headers.authorization, body])).toEqual([
      ['PUT', '/internal/clinics/510000001/free-beds-visibility', 'Bearer the-clinics-token', '{"shownToReferrers":true}'],
      ['GET', '/internal/clinics/510000001/free-beds-visibility', 'Bearer the-clinics-token', ''],
    ]);
  });

  describe("routing's refusals and failures", () => {
    it("passes a 400 on with routing's message (e.g. a department the clinic does not offer)", async () => {
      answer = { status: 400, body: JSON.stringify({ error: 'invalid_request', message: 'the clinic offers no department 2300' }) };

      const response = await request(gateway()).put('/api/v1/clinic/capacity').send(bedCount);

      expect(response.status).toBe(400);
      expect(response.body).toEqual({ error: 'invalid_request', message: 'the clinic offers no department 2300' });
    });

    it('answers 404 when the clinic is not a participating clinic', async () => {
      answer = { status: 404, body: JSON.stringify({ error: 'not_found', message: 'no such clinic' }) };

      const response = await request(gateway()).get('/api/v1/clinic/capacity');

      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'not_found', message: expect.any(String) });
    });

    it.each([
      ['another status', 500, { error: 'internal_error', message: 'internal error' }],
      ['a body outside its contract', 200, { department: '2300', freeBeds: 'three' }],
    ])('answers 503 with Retry-After when routing answers %s', async (_what, status, body) => {
      answer = { status, body: JSON.stringify(body) };

      const response = await request(gateway()).put('/api/v1/clinic/capacity').send(bedCount);

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual({ error: 'unavailable', message: 'the bed counts are temporarily unavailable; please retry' });
    });

    it('answers 503 with Retry-After when routing is not reachable', async () => {
      const response = await request(gateway('http://127.0.0.1:1')).put('/api/v1/clinic/capacity').send(bedCount);

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual({ error: 'unavailable', message: expect.any(String) });
    });

    it("answers 503 with Retry-After when what answers is not routing's JSON (a proxy's error page)", async () => {
      answer = { status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' };

      const response = await request(gateway()).get('/api/v1/clinic/capacity');

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
    });
  });
});
