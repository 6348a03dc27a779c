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
import { freeBedsVisibilityRouter } from '../registry/free-beds-visibility.router';
import { BedCapacityRepository } from './bed-capacity.repository';
import { freeBedsRouter } from './free-beds.router';

const env = testEnvironment();
const TODAY = '2026-11-30';
const DAY = '2026-12-01';
const WALDSEE = '510000001';
const BERGBLICK = '510000002';
const SONNENHANG = '510000003';

describe("the free beds referrers read and the clinics' visibility switch, through routing's internal API against the real PostgreSQL", () => {
  let prisma: RoutingDatabase;
  let beds: BedCapacityRepository;
  let server: Server;
  let baseUrl: string;
  let key: TestSigningKey;
  let referrer: string;

  beforeAll(async () => {
    key = await newSigningKey();
    const schema = uniqueName('routing');
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    const clinics = new ClinicRepository(prisma);
    const registry = new ClinicRegistry(clinics);
    await registry.register({ ik: WALDSEE, name: 'Reha-Klinik Am Waldsee', departments: ['2300', '0300'] });
    await registry.register({ ik: BERGBLICK, name: 'Fachklinik Bergblick', departments: ['2300'] });
    await registry.register({ ik: SONNENHANG, name: 'Klinik Sonnenhang', departments: ['2300'] });
    beds = new BedCapacityRepository(prisma, schema);
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE, serviceAudience: SERVICE_AUDIENCE });
    const app = express()
      .use('/internal/clinics/:ik/free-beds-visibility', freeBedsVisibilityRouter(clinics, verifier, silentLogger()))
      // A fixed clinic day, so that the dates below stay in the future whatever the date the test runs on.
      .use(
        '/internal/free-beds',
        freeBedsRouter(beds, verifier, silentLogger(), () => TODAY),
      );
    server = await listen(app, 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    referrer = await accessToken(key, { sub: 'hospital', claims: { role: 'referrer', ik: ['260000001'], fhirBase: 'https://demo-hospital.example/fhir' } });
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
  });

  const clinicToken = (ik: string) => accessToken(key, { sub: `user-of-${ik}`, claims: { role: 'clinic', ik: [ik] } });
  const visibility = async (method: 'GET' | 'PUT', ik: string, options: { body?: unknown; token?: string } = {}) => {
    const response = await fetch(`${baseUrl}/internal/clinics/${ik}/free-beds-visibility`, {
      method,
      headers: {
        authorization: `Bearer ${options.token ?? (await clinicToken(ik))}`,
        ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const freeBeds = async (query: string, token: string | null = referrer) => {
    const response = await fetch(`${baseUrl}/internal/free-beds${query}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  /** A count with beds booked against it, as the dispatch batches book them. */
  const count = async (ik: string, department: string, date: string, freeBedsCount: number, booked = { held: 0, reserved: 0 }) => {
    await beds.publish({ clinicIk: ik, departmentCode: department, admissionDate: date }, freeBedsCount);
    await prisma.bedCapacity.update({
      where: { clinicIk_departmentCode_admissionDate: { clinicIk: ik, departmentCode: department, admissionDate: new Date(`${date}T00:00:00Z`) } },
      data: booked,
    });
  };

  it('keeps every clinic hidden until it switches itself on', async () => {
    await count(WALDSEE, '2300', DAY, 4, { held: 1, reserved: 1 });
    await count(WALDSEE, '0300', DAY, 1, { held: 0, reserved: 3 });
    await count(WALDSEE, '2300', '2026-12-02', 9);
    await count(BERGBLICK, '2300', DAY, 2);

    expect(await visibility('GET', WALDSEE)).toEqual({ status: 200, body: { shownToReferrers: false } });
    expect(await freeBeds(`?date=${DAY}`)).toEqual({ status: 200, body: { date: DAY, items: [] } });
  });

  it("shows the date's counts of the clinics that switched on, free as their beds page shows it, and nothing of the others", async () => {
    expect(await visibility('PUT', WALDSEE, { body: { shownToReferrers: true } })).toEqual({ status: 200, body: { shownToReferrers: true } });
    expect(await visibility('PUT', SONNENHANG, { body: { shownToReferrers: true } })).toEqual({ status: 200, body: { shownToReferrers: true } });
    expect(await visibility('GET', WALDSEE)).toEqual({ status: 200, body: { shownToReferrers: true } });

    // Sonnenhang published nothing for the day: absent too.
    expect(await freeBeds(`?date=${DAY}`)).toEqual({
      status: 200,
      body: {
        date: DAY,
        items: [
          { ik: WALDSEE, department: '0300', published: 1, held: 0, reserved: 3, free: 0 },
          { ik: WALDSEE, department: '2300', published: 4, held: 1, reserved: 1, free: 2 },
        ],
      },
    });
    expect(await freeBeds(`?date=${DAY}&department=2300`)).toEqual({
      status: 200,
      body: { date: DAY, items: [{ ik: WALDSEE, department: '2300', published: 4, held: 1, reserved: 1, free: 2 }] },
    });
    expect(await freeBeds('?date=2026-12-02&department=0300')).toEqual({ status: 200, body: { date: '2026-12-02', items: [] } });
  });

  it('hides a clinic again once it switches off', async () => {
    expect(await visibility('PUT', WALDSEE, { body: { shownToReferrers: false } })).toEqual({ status: 200, body: { shownToReferrers: false } });

    expect(await freeBeds(`?date=${DAY}`)).toEqual({ status: 200, body: { date: DAY, items: [] } });
  });

  it.each([
    ['', 'date is required: an admission date YYYY-MM-DD'],
    ['?date=2026-11-29', 'date 2026-11-29 is in the past: free beds are shown for today (2026-11-30, Europe/Berlin) or later days'],
    ['?date=2026-02-30', 'date must be one calendar date YYYY-MM-DD, got "2026-02-30"'],
    [`?date=${DAY}&date=2026-12-02`, `date must be one calendar date YYYY-MM-DD, got ["${DAY}","2026-12-02"]`],
    [`?date=${DAY}&department=23x`, 'department must be one department key of 4 digits, e.g. "2300", got "23x"'],
  ])('refuses %j with 400: %s', async (query, message) => {
    expect(await freeBeds(query)).toEqual({ status: 400, body: { error: 'invalid_request', message } });
  });

  it("takes a referrer's token only for the free beds: none is 401, a clinic's or a service's 403", async () => {
    expect((await freeBeds(`?date=${DAY}`, null)).status).toBe(401);
    expect((await freeBeds(`?date=${DAY}`, await clinicToken(WALDSEE))).status).toBe(403);
    expect((await freeBeds(`?date=${DAY}`, await serviceToken(key, 'gateway'))).status).toBe(403);
  });

  it("lets a clinic switch its own IK only, with exactly {shownToReferrers: boolean}, and not a referrer's token", async () => {
    expect((await visibility('PUT', WALDSEE, { body: { shownToReferrers: true }, token: await clinicToken(BERGBLICK) })).status).toBe(403);
    expect((await visibility('GET', WALDSEE, { token: referrer })).status).toBe(403);
    expect(await visibility('PUT', WALDSEE, { body: { shownToReferrers: 'yes' } })).toEqual({
      status: 400,
      body: { error: 'invalid_request', message: 'shownToReferrers: must be true or false' },
    });
    expect(await visibility('PUT', WALDSEE, { body: { shownToReferrers: true, enabled: true } })).toEqual({
      status: 400,
      body: { error: 'invalid_request', message: 'enabled: not allowed' },
    });
    expect(await visibility('GET', WALDSEE)).toEqual({ status: 200, body: { shownToReferrers: false } });
    expect(await visibility('GET', '510000099')).toEqual({ status: 404, body: { error: 'not_found', message: 'no participating clinic with IK 510000099' } });
    expect((await visibility('PUT', '510000099', { body: { shownToReferrers: true } })).status).toBe(404);
  });
});
