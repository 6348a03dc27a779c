import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { listen } from '@bedrequest/observability';
import { captureLogger, testEnvironment, uniqueName, type CapturedLogger } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, SERVICE_AUDIENCE, accessToken, localKeys, newSigningKey, serviceToken, type TestSigningKey } from '@bedrequest/tokens/testing';
import { openRoutingDatabase, type RoutingDatabase } from '../persistence/database';
import { ClinicRegistry } from './clinic-registry.service';
import { ClinicRepository } from './clinic.repository';
import { clinicsRouter } from './clinics.router';

const env = testEnvironment();
const WALDSEE = '510000001';
const BERGBLICK = '510000002';

describe("a clinic's automatic answers through routing's internal API, against the real PostgreSQL", () => {
  let prisma: RoutingDatabase;
  let registry: ClinicRegistry;
  let server: Server;
  let baseUrl: string;
  let key: TestSigningKey;
  let logs: CapturedLogger;

  beforeAll(async () => {
    key = await newSigningKey();
    logs = captureLogger('info');
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema: uniqueName('routing'), poolSize: 2 });
    registry = new ClinicRegistry(new ClinicRepository(prisma));
    await registry.register({ ik: WALDSEE, name: 'Reha-Klinik Am Waldsee', departments: ['2300'] });
    await registry.register({ ik: BERGBLICK, name: 'Fachklinik Bergblick', departments: ['3100'] });
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, serviceAudience: SERVICE_AUDIENCE });
    // Mounted as start.ts mounts it: the clinics router, whose other routes take service tokens only.
    server = await listen(express().use('/internal/clinics', clinicsRouter(registry, verifier, logs.logger)), 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
  });

  /** The clinic's own access token, as the gateway forwards it. */
  const clinicToken = (ik: string) => accessToken(key, { sub: `user-of-${ik}`, claims: { role: 'clinic', ik: [ik] } });
  const call = async (method: 'GET' | 'PUT', ik: string, options: { body?: unknown; token?: string | null } = {}) => {
    const token = options.token === undefined ? await clinicToken(ik) : options.token;
    const response = await fetch(`${baseUrl}/internal/clinics/${ik}/auto-answer`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const stored = async (ik: string) => (await registry.find(ik))?.automaticAnswers;

  it('logs who switched: the clinic party and the person of it (no name)', async () => {
    const token = await accessToken(key, {
      sub: 'waldsee-party',
      claims: { role: 'clinic', ik: [WALDSEE], act: { sub: 'waldsee-anna', name: 'Anna Köhler' } },
    });

    expect(await call('PUT', WALDSEE, { body: { enabled: false }, token })).toEqual({ status: 200, body: { enabled: false } });
    const line = logs
      .text()
      .split('\n')
      .filter((entry) => entry.includes('automatic answers switched'))
      .map((entry) => JSON.parse(entry) as Record<string, unknown>)
      .at(-1);
    expect(line).toMatchObject({ clinicIk: WALDSEE, enabled: false, partyId: 'waldsee-party', userId: 'waldsee-anna' });
    expect(JSON.stringify(line)).not.toContain('Anna');
  });

  it('answers a clinic that never switched: off', async () => {
    expect(await call('GET', BERGBLICK)).toEqual({ status: 200, body: { enabled: false } });
  });

  it('switches the automatic answers on and off in the registry the dispatch reads, and answers the new setting', async () => {
    expect(await call('PUT', WALDSEE, { body: { enabled: true } })).toEqual({ status: 200, body: { enabled: true } });
    expect(await stored(WALDSEE)).toBe(true);
    expect(await call('GET', WALDSEE)).toEqual({ status: 200, body: { enabled: true } });
    // The same again changes nothing and says so.
    expect(await call('PUT', WALDSEE, { body: { enabled: true } })).toEqual({ status: 200, body: { enabled: true } });

    expect(await call('PUT', WALDSEE, { body: { enabled: false } })).toEqual({ status: 200, body: { enabled: false } });
    expect(await stored(WALDSEE)).toBe(false);
    // The other clinic was not touched.
    expect(await stored(BERGBLICK)).toBe(false);
  });

  it.each([
    ['an unknown field', { enabled: true, ik: BERGBLICK }, 'ik: not allowed'],
    ['a string for the switch', { enabled: 'true' }, 'enabled: must be true or false'],
    ['no switch', {}, 'enabled: is required'],
  ])('refuses %s with 400 naming the field, and changes nothing', async (_case, body, message) => {
    const response = await call('PUT', WALDSEE, { body });

    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', message });
    expect(await stored(WALDSEE)).toBe(false);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const response = await call('PUT', WALDSEE, { body: '{"enabled":' });

    expect(response).toEqual({ status: 400, body: { error: 'invalid_request', message: expect.any(String) } });
    expect(await stored(WALDSEE)).toBe(false);
  });

  it("refuses another clinic's IK with 403, whatever the method", async () => {
    const foreign = await clinicToken(BERGBLICK);

    expect((await call('GET', WALDSEE, { token: foreign })).status).toBe(403);
    expect((await call('PUT', WALDSEE, { token: foreign, body: { enabled: true } })).status).toBe(403);
    expect(await stored(WALDSEE)).toBe(false);
  });

  it("takes only a clinic's token: none is 401, a referrer's or a service's 403", async () => {
    const referrer = await accessToken(key, { sub: 'hospital', claims: { role: 'referrer', ik: [WALDSEE], fhirBase: 'https://demo-hospital.example/fhir' } });

    expect((await call('PUT', WALDSEE, { token: null, body: { enabled: true } })).status).toBe(401);
    expect((await call('PUT', WALDSEE, { token: referrer, body: { enabled: true } })).status).toBe(403);
    expect((await call('PUT', WALDSEE, { token: await serviceToken(key, 'intake'), body: { enabled: true } })).status).toBe(403);
    expect(await stored(WALDSEE)).toBe(false);
  });

  it('answers 404 for a clinic token whose IK is not a participating clinic', async () => {
    expect(await call('GET', '510000099')).toEqual({ status: 404, body: { error: 'not_found', message: 'no participating clinic with IK 510000099' } });
    expect((await call('PUT', '510000099', { body: { enabled: true } })).status).toBe(404);
  });

  it('leaves the rest of the registry API to service tokens', async () => {
    const response = await fetch(`${baseUrl}/internal/clinics`, { headers: { authorization: `Bearer ${await clinicToken(WALDSEE)}` } });

    expect(response.status).toBe(403);
  });
});
