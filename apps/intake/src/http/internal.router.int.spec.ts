import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Client } from 'pg';
import { fhirSystems } from '@bedrequest/fhir-model';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { openIntakeDatabase, type IntakeDatabase } from '../persistence/database';
import { TaskReadRepository } from '../tasks/task-read.repository';
import { TaskReadService } from '../tasks/task-read.service';
import { internalRouter } from './internal.router';

const env = testEnvironment();
const IDENTIFIER = 'https://hospital.example/fhir/ServiceRequest/router-1';
const CLINICS = ['510000001', '510000002', '510000003'];
const referrer = { 'x-viewer-role': 'referrer', 'x-viewer-party': 'referrer-1' };

/** Intake's internal Task API over HTTP, as the gateway calls it, against the real PostgreSQL. */
describe('intake internal Task API', () => {
  const schema = uniqueName('intake');
  let prisma: IntakeDatabase;
  let server: Server;
  let baseUrl: string;
  const taskIds: string[] = [];

  beforeAll(async () => {
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
          `INSERT INTO "${schema}".clinic_task (id, request_id, clinic_ik, status, sent_version, authored_on, last_modified)
           VALUES ($1, $2, $3, 'requested', 1, now(), $4)`,
          [id, requestId, clinicIk, new Date(Date.UTC(2026, 2, 1, 8, n))],
        );
        taskIds.push(id);
      }
    } finally {
      await client.end();
    }
    const app = express().use(internalRouter(new TaskReadService(new TaskReadRepository(prisma, schema), fhirSystems('https://bedrequest.example.org')), silentLogger()));
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
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

  it('answers a search with a searchset whose links and fullUrls use the gateway\'s public base', async () => {
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

  it('answers 400 without the viewer headers and finds no Task for a viewer who may not see it', async () => {
    expect((await get('/internal/tasks', {})).status).toBe(400);
    expect(await get(`/internal/tasks/${taskIds[0]}`, { 'x-viewer-role': 'referrer', 'x-viewer-party': 'referrer-2' })).toMatchObject({ status: 404, body: { resourceType: 'OperationOutcome' } });
    expect(await get(`/internal/tasks/${taskIds[0]}`, { 'x-viewer-role': 'clinic', 'x-viewer-iks': CLINICS[0]! })).toMatchObject({ status: 200, body: { id: taskIds[0] } });
  });
});
