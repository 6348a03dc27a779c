import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client } from 'pg';
import { listen } from '@bedrequest/observability';
import { fhirSystems } from '@bedrequest/fhir-model';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, localKeys, newSigningKey, serviceToken, type TestSigningKey } from '@bedrequest/tokens/testing';
import { AuditTrailRepository, AuditTrail } from '../audit';
import { openIntakeDatabase, type IntakeDatabase, prismaRunner } from '../persistence';
import { RequestErasureRepository } from '../erasure';
import { testSealedFields } from '../testing';
import { TaskReadRepository, TaskReadService } from '../tasks';
import { internalRouter } from './internal.router';

const env = testEnvironment();
const IDENTIFIER = 'https://hospital.example/fhir/ServiceRequest/router-1';
const CLINICS = ['510000001', '510000002', '510000003'];
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

/** Intake's internal Task API over HTTP, as the gateway calls it, against the real PostgreSQL. */
describe('intake internal Task API', () => {
  const schema = uniqueName('intake');
  let prisma: IntakeDatabase;
  let server: Server;
  let baseUrl: string;
  const taskIds: string[] = [];
  let key: TestSigningKey;
  let referrer: Record<string, string>;

  beforeAll(async () => {
    key = await newSigningKey();
    referrer = bearer(await accessToken(key, { sub: 'referrer-1' }));
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    const client = new Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      const requestId = crypto.randomUUID();
      await client.query(
        `INSERT INTO "${schema}".admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
         VALUES ($1, $2, 'referrer-1', '260000001', 'active', 'proposal', 1, 'hash', now())`,
        [requestId, IDENTIFIER],
      );
      for (const [n, clinicIk] of CLINICS.entries()) {
        const id = crypto.randomUUID();
        await client.query(
          `INSERT INTO "${schema}".clinic_task (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified)
           SELECT $1, $2, r.referrer_party_id, $3, 'requested', 1, now(), $4 FROM "${schema}".admission_request r WHERE r.id = $2`,
          [id, requestId, clinicIk, new Date(Date.UTC(2026, 2, 1, 8, n))],
        );
        taskIds.push(id);
      }
    } finally {
      await client.end();
    }
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema));
    const tasks = new TaskReadService(
      new TaskReadRepository(prisma, schema, await testSealedFields(prisma, schema)),
      fhirSystems('https://bedrequest.example.org'),
      audit,
    );
    const app = express().use(internalRouter(tasks, audit, new RequestErasureRepository(prisma, schema), verifier, silentLogger()));
    server = await listen(app, 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
  });

  const get = async (path: string, headers: Record<string, string>) => {
    const response = await fetch(`${baseUrl}${path}`, { headers });
    return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
  };

  it("answers a search with a searchset whose links and fullUrls use the gateway's public base", async () => {
    const answer = await get(`/internal/tasks?based-on=${encodeURIComponent(IDENTIFIER)}&_count=2`, { ...referrer, 'x-public-base': 'https://api.example/' });

    expect(answer).toMatchObject({ status: 200, type: 'application/fhir+json; charset=utf-8' });
    expect(answer.body).toMatchObject({
      resourceType: 'Bundle',
      type: 'searchset',
      total: 3,
      link: [
        { relation: 'self', url: `https://api.example/api/v2/fhir/Task?based-on=${encodeURIComponent(IDENTIFIER)}&_count=2` },
        { relation: 'next', url: `https://api.example/api/v2/fhir/Task?based-on=${encodeURIComponent(IDENTIFIER)}&_count=2&_offset=2` },
      ],
      entry: taskIds.slice(0, 2).map((id) => ({ fullUrl: `https://api.example/api/v2/fhir/Task/${id}`, resource: { id } })),
    });
  });

  it('answers an unknown search parameter with 400 and an OperationOutcome', async () => {
    const answer = await get('/internal/tasks?color=blue', referrer);

    expect(answer).toMatchObject({ status: 400, type: 'application/fhir+json; charset=utf-8' });
    expect(answer.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid', expression: ['color'] }] });
  });

  it('answers _lastUpdated with a day as the whole (UTC) day, and a _format other than JSON with 406', async () => {
    expect(await get('/internal/tasks?_lastUpdated=2026-03-01&_format=json', referrer)).toMatchObject({ status: 200, body: { total: 3 } });
    expect(await get('/internal/tasks?_lastUpdated=ne2026-03-01', referrer)).toMatchObject({ status: 200, body: { total: 0 } });
    expect(await get('/internal/tasks?_lastUpdated=2026-03-01T08:01Z&_summary=count', referrer)).toEqual({
      status: 200,
      type: 'application/fhir+json; charset=utf-8',
      body: {
        resourceType: 'Bundle',
        type: 'searchset',
        total: 1,
        link: [{ relation: 'self', url: '/api/v2/fhir/Task?_lastUpdated=2026-03-01T08%3A01Z&_summary=count' }],
      },
    });

    const refused = await get('/internal/tasks?_format=xml', referrer);
    expect(refused).toMatchObject({
      status: 406,
      type: 'application/fhir+json; charset=utf-8',
      body: { resourceType: 'OperationOutcome', issue: [{ code: 'not-supported', expression: ['_format'] }] },
    });
  });

  it('reads a Task with _format and _elements, and refuses other parameters on a read', async () => {
    const read = await get(`/internal/tasks/${taskIds[0]}?_format=application%2Ffhir%2Bjson&_elements=owner`, referrer);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body)).toEqual(['resourceType', 'id', 'meta', 'status', 'intent', 'owner']);

    expect(await get(`/internal/tasks/${taskIds[0]}?_format=xml`, referrer)).toMatchObject({ status: 406, body: { issue: [{ code: 'not-supported' }] } });
    expect(await get(`/internal/tasks/${taskIds[0]}?colour=blue`, referrer)).toMatchObject({
      status: 400,
      body: { issue: [{ code: 'invalid', expression: ['colour'] }] },
    });
  });

  it('finds no Task for a party who may not see it, and the Task for its clinic', async () => {
    expect(await get(`/internal/tasks/${taskIds[0]}`, bearer(await accessToken(key, { sub: 'referrer-2' })))).toMatchObject({
      status: 404,
      body: { resourceType: 'OperationOutcome' },
    });
    const clinic = bearer(await accessToken(key, { sub: 'clinic-user', claims: { role: 'clinic', ik: [CLINICS[0]] } }));
    expect(await get(`/internal/tasks/${taskIds[0]}`, clinic)).toMatchObject({ status: 200, body: { id: taskIds[0] } });
  });

  it('answers its refusals as OperationOutcomes with the status and issue type of their error code', async () => {
    const outcomeOf = (code: string, diagnostics: string) => ({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code, diagnostics }] });
    const stranger = bearer(await accessToken(key, { sub: 'referrer-2' }));
    const erase = async (query: string, headers: Record<string, string>) => {
      const response = await fetch(`${baseUrl}/internal/requests${query}`, { method: 'DELETE', headers });
      return { status: response.status, type: response.headers.get('content-type'), body: (await response.json()) as Record<string, unknown> };
    };

    expect(await get(`/internal/tasks/${taskIds[0]}`, stranger)).toEqual({
      status: 404,
      type: 'application/fhir+json; charset=utf-8',
      body: outcomeOf('not-found', 'no such Task'),
    });
    expect(await get(`/internal/tasks/${taskIds[0]}/documents`, stranger)).toMatchObject({ status: 404, body: outcomeOf('not-found', 'no such Task') });
    expect(await erase('', referrer)).toEqual({
      status: 400,
      type: 'application/fhir+json; charset=utf-8',
      body: outcomeOf('required', 'the parameter identifier (the ServiceRequest identifier, once) is required'),
    });
    expect(await erase(`?identifier=${encodeURIComponent('https://hospital.example/fhir/ServiceRequest/unknown')}`, referrer)).toMatchObject({
      status: 404,
      body: outcomeOf('not-found', 'there is no request of yours with this identifier'),
    });
  });

  it('refuses a call without a valid party token with 401, whatever identity headers claim', async () => {
    const forged = { 'x-viewer-role': 'referrer', 'x-viewer-party': 'referrer-1', 'x-viewer-iks': '260000001' };
    const stranger = await newSigningKey(key.kid);

    for (const headers of [
      forged,
      { ...forged, ...bearer(await accessToken(stranger, { sub: 'referrer-1' })) },
      { ...forged, ...bearer(await serviceToken(key, 'gateway')) },
    ]) {
      for (const path of [
        '/internal/tasks',
        `/internal/tasks/${taskIds[0]}`,
        `/internal/tasks/${taskIds[0]}/bundle`,
        `/internal/tasks/${taskIds[0]}/documents`,
        '/internal/audit-events',
      ]) {
        expect(await get(path, headers)).toMatchObject({ status: 401, body: { resourceType: 'OperationOutcome', issue: [{ code: 'login' }] } });
      }
    }
  });

  it("takes who asks from the token, not from headers: another referrer's token with forged headers sees nothing", async () => {
    const headers = { ...bearer(await accessToken(key, { sub: 'referrer-2' })), 'x-viewer-role': 'referrer', 'x-viewer-party': 'referrer-1' };

    expect(await get(`/internal/tasks/${taskIds[0]}`, headers)).toMatchObject({ status: 404 });
    expect(await get(`/internal/tasks?based-on=${encodeURIComponent(IDENTIFIER)}`, headers)).toMatchObject({ status: 200, body: { total: 0 } });
  });
});
