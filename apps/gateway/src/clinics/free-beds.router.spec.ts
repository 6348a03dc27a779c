import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { ClinicCapacityClient } from '../capacity/capacity.client';
import { freeBedsRouter } from './free-beds.router';

const hospital: Principal = { partyId: 'hospital-1', userId: 'hospital-1', role: 'referrer', ikNumbers: ['260000001'] };

/**
 * The gateway side of GET /api/v1/kliniken/free-beds, with a stand-in for routing's internal API
 * called through the real ClinicCapacityClient; routing's rules (who is shown, past dates) are tested
 * in apps/routing/src/beds/free-beds.router.int.spec.ts.
 */
describe('GET /api/v1/kliniken/free-beds', () => {
  let routing: Server;
  let routingUrl: string;
  let calls: { url: string; headers: IncomingHttpHeaders }[];
  let answer: { status: number; body: unknown };

  beforeAll(async () => {
    routing = createServer((req, res) => {
      calls.push({ url: req.url ?? '', headers: req.headers });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => routing.listen(0, '127.0.0.1', resolve));
    routingUrl = `http://127.0.0.1:${(routing.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    calls = [];
    answer = { status: 200, body: { date: '2026-12-07', items: [] } };
  });
  afterAll(() => {
    routing.closeAllConnections();
    return new Promise((resolve) => routing.close(resolve));
  });

  const gateway = (url = routingUrl) =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = hospital;
        res.locals.accessToken = 'the-referrers-token';
        next();
      })
      .use('/api/v1/kliniken/free-beds', freeBedsRouter({ capacity: new ClinicCapacityClient(url, 2_000), logger: silentLogger() }));

  it("asks routing with the referrer's token for the date and department and answers its figures", async () => {
    const items = [{ ik: '510000001', department: '2300', published: 3, held: 0, reserved: 1, free: 2 }];
    answer = { status: 200, body: { date: '2026-12-07', items } };

    const response = await request(gateway()).get('/api/v1/kliniken/free-beds?date=2026-12-07&department=2300').set('x-correlation-id', 'free-1');

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ date: '2026-12-07', items });
    expect(calls).toEqual([
      {
        url: '/internal/free-beds?date=2026-12-07&department=2300',
        headers: expect.objectContaining({ authorization: 'Bearer the-referrers-token', 'x-correlation-id': 'free-1' }),
      },
    ]);
  });

  it.each([
    ['no date', '', 'date: is required'],
    ['a date that is not YYYY-MM-DD', '?date=7.12.2026', 'date: must be one admission date YYYY-MM-DD'],
    ['two dates', '?date=2026-12-07&date=2026-12-08', expect.stringContaining('date: ')],
    ['a department that is not 4 digits', '?date=2026-12-07&department=ortho', 'department: must be one department key of 4 digits, e.g. "2300"'],
    ['an unknown parameter', '?date=2026-12-07&from=2026-12-01', 'from: not allowed'],
  ])('answers 400 invalid_request without asking routing for %s', async (_what, query, message) => {
    const response = await request(gateway()).get(`/api/v1/kliniken/free-beds${query}`);

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', message });
    expect(calls).toEqual([]);
  });

  it("passes routing's refusal of a past date on with its message", async () => {
    const message = 'date 2026-12-01 is in the past: free beds are shown for today (2026-12-06, Europe/Berlin) or later days';
    answer = { status: 400, body: { error: 'invalid_request', message } };

    const response = await request(gateway()).get('/api/v1/kliniken/free-beds?date=2026-12-01');

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', message });
  });

  it('answers 503 with Retry-After when routing is not reachable or answers outside its contract', async () => {
    const unreachable = await request(gateway('http://127.0.0.1:1')).get('/api/v1/kliniken/free-beds?date=2026-12-07');
    answer = { status: 200, body: { items: 'none' } };
    const garbled = await request(gateway()).get('/api/v1/kliniken/free-beds?date=2026-12-07');

    for (const response of [unreachable, garbled]) {
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBeDefined();
    }
  });
});
