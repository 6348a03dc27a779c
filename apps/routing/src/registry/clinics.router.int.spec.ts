import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { listen } from '@bedrequest/observability';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, SERVICE_AUDIENCE, accessToken, localKeys, newSigningKey, serviceToken, type TestSigningKey } from '@bedrequest/tokens/testing';
import { openRoutingDatabase, type RoutingDatabase } from '../persistence/database';
import { ClinicRegistry } from './clinic-registry.service';
import { ClinicRepository } from './clinic.repository';
import { clinicsRouter } from './clinics.router';

const env = testEnvironment();

describe('routing internal clinic API against the real PostgreSQL', () => {
  let prisma: RoutingDatabase;
  let registry: ClinicRegistry;
  let server: Server;
  let baseUrl: string;
  let key: TestSigningKey;
  /** What a service of the stack sends: its service token. */
  let service: { headers: Record<string, string> };

  beforeAll(async () => {
    key = await newSigningKey();
    service = { headers: { authorization: `Bearer ${await serviceToken(key, 'intake')}` } };
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema: uniqueName('routing'), poolSize: 2 });
    registry = new ClinicRegistry(new ClinicRepository(prisma));
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, serviceAudience: SERVICE_AUDIENCE });
    server = await listen(express().use('/internal/clinics', clinicsRouter(registry, verifier, silentLogger())), 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
  });

  it('lists registered clinics with code, specialty and display of each department', async () => {
    await registry.register({ ik: '510000002', name: 'Fachklinik Bergblick', departments: ['3100', '8501'] });
    await registry.register({ ik: '510000001', name: 'Reha-Klinik Am Waldsee', departments: ['2300', '2800'] });

    const response = await fetch(`${baseUrl}/internal/clinics`, service);

    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      items: [
        {
          ik: '510000001',
          name: 'Reha-Klinik Am Waldsee',
          departments: [
            { code: '2300', specialty: 'orthopedics', display: 'orthopaedics' },
            { code: '2800', specialty: 'neurology', display: 'neurology' },
          ],
        },
        {
          ik: '510000002',
          name: 'Fachklinik Bergblick',
          departments: [
            { code: '3100', specialty: 'psychosomatic', display: 'psychosomatics/psychotherapy' },
            { code: '8501', specialty: 'addiction', display: 'addiction treatment' },
          ],
        },
      ],
    });
  });

  it('a second registration of the same IK replaces name and departments', async () => {
    const first = await registry.register({ ik: '510000003', name: 'Rehazentrum', departments: ['0200'] });
    const second = await registry.register({ ik: '510000003', name: 'Rehazentrum Seeufer', departments: ['2852', '2891'] });

    expect([first.created, second.created]).toEqual([true, false]);
    const response = await fetch(`${baseUrl}/internal/clinics/510000003`, service);
    expect(await response.json()).toMatchObject({ name: 'Rehazentrum Seeufer', departments: [{ code: '2852' }, { code: '2891' }] });
  });

  it('answers 404 with an error body for an unknown or malformed IK', async () => {
    for (const ik of ['599999999', 'not-an-ik']) {
      const response = await fetch(`${baseUrl}/internal/clinics/${ik}`, service);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'not_found' });
    }
  });

  it("answers only a service token: none is 401, a party's token 403", async () => {
    expect((await fetch(`${baseUrl}/internal/clinics`)).status).toBe(401);
    expect((await fetch(`${baseUrl}/internal/clinics`, { headers: { authorization: `Bearer ${await accessToken(key)}` } })).status).toBe(403);
  });
});
