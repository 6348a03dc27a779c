import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { openRoutingDatabase, type RoutingDatabase } from '../persistence/database';
import { ClinicRegistry } from '../registry/clinic-registry.service';
import { ClinicRepository } from '../registry/clinic.repository';
import { BedCapacityRepository } from './bed-capacity.repository';
import { BedCountService } from './bed-count.service';
import { capacityRouter } from './capacity.router';

const env = testEnvironment();

describe('routing internal bed-count API against the real PostgreSQL', () => {
  let prisma: RoutingDatabase;
  let server: Server;
  let baseUrl: string;

  beforeAll(async () => {
    const schema = uniqueName('routing');
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    const registry = new ClinicRegistry(new ClinicRepository(prisma));
    await registry.register({ ik: '510000001', name: 'Reha-Klinik Am Waldsee', departments: ['2300', '0300'] });
    const app = express();
    app.use('/internal/clinics/:ik/capacity', capacityRouter(new BedCountService(registry, new BedCapacityRepository(prisma, schema)), silentLogger()));
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
  });

  const put = (ik: string, body: unknown) =>
    fetch(`${baseUrl}/internal/clinics/${ik}/capacity`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

  it('sets the count of one department on one date and answers with what is booked against it', async () => {
    const response = await put('510000001', { department: '2300', date: '2026-12-01', freeBeds: 4 });

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ department: '2300', specialty: 'orthopedics', date: '2026-12-01', freeBeds: 4, held: 0, reserved: 0, available: 4 });
  });

  it('lists the clinic\'s counts by date, optionally within a range', async () => {
    await put('510000001', { department: '0300', date: '2026-12-02', freeBeds: 1 });
    await put('510000001', { department: '2300', date: '2026-12-01', freeBeds: 2 });

    const all = (await (await fetch(`${baseUrl}/internal/clinics/510000001/capacity`)).json()) as { items: { date: string; freeBeds: number }[] };
    expect(all.items.map((item) => [item.date, item.freeBeds])).toEqual([
      ['2026-12-01', 2],
      ['2026-12-02', 1],
    ]);
    const later = (await (await fetch(`${baseUrl}/internal/clinics/510000001/capacity?from=2026-12-02&to=2026-12-31`)).json()) as { items: unknown[] };
    expect(later.items).toHaveLength(1);
  });

  it.each([
    [{ department: '3100', date: '2026-12-01', freeBeds: 1 }, 'department must be a department key the clinic offers (2300, 0300)'],
    [{ department: '2300', date: '1.12.2026', freeBeds: 1 }, 'date must be a calendar date YYYY-MM-DD'],
    [{ department: '2300', date: '2026-12-01', freeBeds: 1.5 }, 'freeBeds must be a whole number'],
    [{ department: '2300', date: '2026-12-01' }, 'freeBeds must be a whole number'],
    ['{"department":', 'the body is not valid JSON'],
  ])('answers 400 for %j', async (body, message) => {
    const response = await put('510000001', body);

    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_request', message: expect.stringContaining(message) });
  });

  it('answers 404 for a clinic that is not registered', async () => {
    const response = await put('599999999', { department: '2300', date: '2026-12-01', freeBeds: 1 });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: 'not_found' });
    expect((await fetch(`${baseUrl}/internal/clinics/599999999/capacity`)).status).toBe(404);
  });
});
