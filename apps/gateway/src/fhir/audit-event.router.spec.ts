import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { errorHandler } from '../http-errors';
import { auditEventRouter } from './audit-event.router';
import { IntakeClient } from './intake.client';

const principal: Principal = { partyId: 'clinic-user', userId: 'clinic-user', role: 'clinic', ikNumbers: ['510000001'] };

/**
 * The gateway side of the AuditEvent search against a stand-in for intake's internal API (the real
 * API is tested in apps/intake/src/audit/audit-trail.int.spec.ts).
 */
describe('GET /api/v2/fhir/AuditEvent through the intake client', () => {
  let intake: Server;
  let client: IntakeClient;
  let answer: (res: ServerResponse) => void;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    intake = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      answer(res);
    });
    await new Promise<void>((resolve) => intake.listen(0, '127.0.0.1', resolve));
    client = new IntakeClient(`http://127.0.0.1:${(intake.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await client.close();
    intake.closeAllConnections();
    await new Promise((resolve) => intake.close(resolve));
  });

  const gatewayTo = (intakeClient: IntakeClient) =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = principal;
        res.locals.accessToken = 'the-callers-token';
        next();
      })
      .use('/api/v2/fhir', auditEventRouter(intakeClient))
      .use(errorHandler(silentLogger()));
  const fhirJson = (status: number, body: string) => (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/fhir+json; charset=utf-8' }).end(body);

  it("passes intake's searchset through unchanged, not to be cached, with the caller's token, search, base and address", async () => {
    const body = '{"resourceType":"Bundle", "type":"searchset","total":0}';
    answer = fhirJson(200, body);

    const response = await request(gatewayTo(client))
      .get('/api/v2/fhir/AuditEvent?entity=https%3A%2F%2Fhospital.example%2Ffhir%2FServiceRequest%2F1&_count=5')
      .set('host', 'api.example')
      // The gateway is the edge: what a caller claims here is not its address.
      .set('x-forwarded-for', '192.0.2.66');

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text).toBe(body);
    expect(seen.at(-1)).toMatchObject({
      url: '/internal/audit-events?entity=https%3A%2F%2Fhospital.example%2Ffhir%2FServiceRequest%2F1&_count=5',
      headers: { authorization: 'Bearer the-callers-token', 'x-public-base': 'http://api.example', 'x-forwarded-for': expect.stringMatching(/127\.0\.0\.1$/) },
    });
  });

  it("passes intake's refusal of a parameter through with its status", async () => {
    const body = JSON.stringify({
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'error', code: 'invalid', diagnostics: 'patient: unknown parameter', expression: ['patient'] }],
    });
    answer = fhirJson(400, body);

    const response = await request(gatewayTo(client)).get('/api/v2/fhir/AuditEvent?patient=1');

    expect(response.status).toBe(400);
    expect(response.text).toBe(body);
  });

  it('answers 503 with Retry-After when intake is not reachable', async () => {
    const unreachable = new IntakeClient('http://127.0.0.1:1');

    const response = await request(gatewayTo(unreachable)).get('/api/v2/fhir/AuditEvent');
    await unreachable.close();

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'transient' }] });
  });
});
