import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import { ClinicDirectory, loadClinicsFrom } from '@bedrequest/clinic-directory';
import { klinikenRouter } from './kliniken.router';

/**
 * The gateway side of GET /api/v1/kliniken, read through a ClinicDirectory from a stand-in for
 * routing's internal API (the real API is tested in apps/routing/src/registry/clinics.router.int.spec.ts).
 */
describe('GET /api/v1/kliniken', () => {
  let routing: Server;
  let routingUrl: string;
  let answer: { status: number; body: unknown };
  const requested: string[] = [];
  const credentials: (string | undefined)[] = [];
  const serviceToken = { token: () => Promise.resolve('gateway-service-token'), refused: () => undefined };

  beforeAll(async () => {
    routing = createServer((req, res) => {
      requested.push(req.url ?? '');
      credentials.push(req.headers.authorization);
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
    });
    await new Promise<void>((resolve) => routing.listen(0, '127.0.0.1', resolve));
    routingUrl = `http://127.0.0.1:${(routing.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => routing.close(resolve)));

  const gateway = (url: string) =>
    express().use(
      '/api/v1/kliniken',
      klinikenRouter(new ClinicDirectory({ load: loadClinicsFrom(url, serviceToken), logger: silentLogger() }), silentLogger()),
    );

  it("answers with routing's clinic list in the documented shape, without the clinics' location", async () => {
    const clinic = { ik: '510000001', name: 'Reha-Klinik Am Waldsee', departments: [{ code: '2300', specialty: 'orthopedics', display: 'orthopaedics' }] };
    const location = { postalCode: '14467', coordinates: { latitude: 52.39, longitude: 13.065 } };
    answer = { status: 200, body: { items: [{ ...clinic, ...location, createdAt: 'internal detail' }] } };

    const response = await request(gateway(routingUrl)).get('/api/v1/kliniken');

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ items: [clinic] });
    expect(requested.at(-1)).toBe('/internal/clinics');
    expect(credentials.at(-1)).toBe('Bearer gateway-service-token');
  });

  it('answers 503 with Retry-After when routing fails', async () => {
    answer = { status: 500, body: { error: 'internal' } };

    const response = await request(gateway(routingUrl)).get('/api/v1/kliniken');

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toEqual({ error: 'unavailable', message: 'the clinic registry is temporarily unavailable' });
  });

  it('answers 503 when routing answers in another shape', async () => {
    answer = { status: 200, body: { clinics: [] } };

    expect((await request(gateway(routingUrl)).get('/api/v1/kliniken')).status).toBe(503);
  });

  it('answers 503 when routing is not reachable', async () => {
    expect((await request(gateway('http://127.0.0.1:1')).get('/api/v1/kliniken')).status).toBe(503);
  });
});
