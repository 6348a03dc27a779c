import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { listen } from '@bedrequest/observability';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, SERVICE_AUDIENCE, accessToken, localKeys, newSigningKey, serviceToken, type TestSigningKey } from '@bedrequest/tokens/testing';
import { openRoutingDatabase, type RoutingDatabase } from '../persistence/database';
import { ClinicRegistry } from '../registry/clinic-registry.service';
import { ClinicRepository } from '../registry/clinic.repository';
import { BedCapacityRepository } from './bed-capacity.repository';
import { BedCountService } from './bed-count.service';
import { capacityRouter } from './capacity.router';

const env = testEnvironment();
const TODAY = '2026-11-30';

describe('routing internal bed-count API against the real PostgreSQL', () => {
  let prisma: RoutingDatabase;
  let server: Server;
  let baseUrl: string;
  let key: TestSigningKey;
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    key = await newSigningKey();
    const schema = uniqueName('routing');
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    const registry = new ClinicRegistry(new ClinicRepository(prisma));
    await registry.register({ ik: '510000001', name: 'Reha-Klinik Am Waldsee', departments: ['2300', '0300'] });
    // A fixed clinic day, so that the dates below stay publishable whatever the date the test runs on.
    const today = () => TODAY;
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, serviceAudience: SERVICE_AUDIENCE });
    const app = express().use(
      '/internal/clinics/:ik/capacity',
      capacityRouter(new BedCountService(registry, new BedCapacityRepository(prisma, schema), today), verifier, silentLogger()),
    );
    server = await listen(app, 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
  });

  /** The clinic's own access token, as the gateway forwards it. */
  const tokenOf = async (ik: string) => {
    if (!tokens.has(ik)) tokens.set(ik, await accessToken(key, { sub: `user-of-${ik}`, claims: { role: 'clinic', ik: [ik] } }));
    return { authorization: `Bearer ${tokens.get(ik)!}` };
  };
  const put = async (ik: string, body: unknown, credential?: Record<string, string>) =>
    fetch(`${baseUrl}/internal/clinics/${ik}/capacity`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', ...(credential ?? (await tokenOf(ik))) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const get = async (ik: string, query = '') => fetch(`${baseUrl}/internal/clinics/${ik}/capacity${query}`, { headers: await tokenOf(ik) });

  it('sets the count of one department on one date and answers with what is booked against it', async () => {
    const response = await put('510000001', { department: '2300', date: '2026-12-01', freeBeds: 4 });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      department: '2300',
      specialty: 'orthopedics',
      date: '2026-12-01',
      freeBeds: 4,
      held: 0,
      reserved: 0,
      available: 4,
    });
  });

  it("lists the clinic's counts by date, optionally within a range", async () => {
    await put('510000001', { department: '0300', date: '2026-12-02', freeBeds: 1 });
    await put('510000001', { department: '2300', date: '2026-12-01', freeBeds: 2 });

    const all = (await (await get('510000001')).json()) as { items: { date: string; freeBeds: number }[] };
    expect(all.items.map((item) => [item.date, item.freeBeds])).toEqual([
      ['2026-12-01', 2],
      ['2026-12-02', 1],
    ]);
    const later = (await (await get('510000001', '?from=2026-12-02&to=2026-12-31')).json()) as { items: unknown[] };
    expect(later.items).toHaveLength(1);
  });

  it.each([
    [{ department: '3100', date: '2026-12-01', freeBeds: 1 }, 'department must be a department key the clinic offers (2300, 0300)'],
    [{ department: '2300', date: '1.12.2026', freeBeds: 1 }, 'date must be a calendar date YYYY-MM-DD'],
    [{ department: '2300', date: '2026-12-01', freeBeds: 1.5 }, 'freeBeds must be a whole number'],
    [{ department: '2300', date: '2026-12-01' }, 'freeBeds must be a whole number'],
    ['{"department":', 'the body is not valid JSON'],
    // A day gone, in the clinic's time zone: named with today's date.
    [{ department: '2300', date: '2026-11-29', freeBeds: 1 }, 'date 2026-11-29 is in the past: bed counts are published for today (2026-11-30, Europe/Berlin)'],
  ])('answers 400 for %j', async (body, message) => {
    const response = await put('510000001', body);

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
  });

  it("takes today's date, the clinic's day", async () => {
    expect((await put('510000001', { department: '2300', date: TODAY, freeBeds: 1 })).status).toBe(200);
  });

  it('answers 404 for a clinic that is not registered', async () => {
    const response = await put('599999999', { department: '2300', date: '2026-12-01', freeBeds: 1 });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'not_found' });
    expect((await get('599999999')).status).toBe(404);
  });

  it("refuses a call without the clinic's own token: none 401, another clinic's 403, a referrer's or a service's 403", async () => {
    const count = { department: '2300', date: '2026-12-03', freeBeds: 9 };

    expect((await put('510000001', count, {})).status).toBe(401);
    expect((await put('510000001', count, { 'x-viewer-iks': '510000001' })).status).toBe(401);
    expect((await put('510000001', count, await tokenOf('510000009'))).status).toBe(403);
    expect((await put('510000001', count, { authorization: `Bearer ${await accessToken(key)}` })).status).toBe(403);
    expect((await put('510000001', count, { authorization: `Bearer ${await serviceToken(key, 'gateway')}` })).status).toBe(403);
    const counts = (await (await get('510000001', '?from=2026-12-03&to=2026-12-03')).json()) as { items: unknown[] };
    expect(counts.items).toEqual([]);
  });
});
