import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { errorHandler } from '../http-errors';
import { IntakeRequestsClient, intakeRequestsRoute } from './requests.router';

const principal: Principal = { partyId: 'referrer-1', userId: 'person-1', role: 'referrer', ikNumbers: ['260000001'] };
const IDENTIFIER = 'https://hospital.example/fhir/ServiceRequest/1';

/**
 * The gateway side of the referrer's read of a request against a stand-in for intake's internal API
 * (the whole way, with intake and the audit trail: tools/e2e/request-read-back.int.spec.ts).
 */
describe('GET /api/v2/fhir/ServiceRequest through the request read client', () => {
  let intake: Server;
  let client: IntakeRequestsClient;
  let answer: (res: ServerResponse) => void;
  const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];

  beforeAll(async () => {
    intake = createServer((req, res) => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      answer(res);
    });
    await new Promise<void>((resolve) => intake.listen(0, '127.0.0.1', resolve));
    client = new IntakeRequestsClient(`http://127.0.0.1:${(intake.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await client.close();
    intake.closeAllConnections();
    await new Promise((resolve) => intake.close(resolve));
  });

  const gatewayTo = (intakeClient: IntakeRequestsClient) =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = principal;
        res.locals.accessToken = 'the-callers-token';
        next();
      })
      .get('/api/v2/fhir/ServiceRequest', intakeRequestsRoute(intakeClient, 'GET'))
      .use(errorHandler(silentLogger()));
  const fhirJson = (status: number, body: string) => (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/fhir+json; charset=utf-8' }).end(body);

  it("passes intake's searchset through unchanged, not to be cached, with the caller's token, search, base and address", async () => {
    // Key order and spacing as intake wrote them: the gateway does not parse and re-serialise.
    const body = '{"resourceType":"Bundle", "type":"searchset","total":1,"entry":[{"resource":{"resourceType":"ServiceRequest"},"search":{"mode":"match"}}]}';
    answer = fhirJson(200, body);

    const response = await request(gatewayTo(client))
      .get(`/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(IDENTIFIER)}`)
      .set('host', 'api.example')
      .set('x-forwarded-for', '192.0.2.66');

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text).toBe(body);
    expect(seen.at(-1)).toMatchObject({
      method: 'GET',
      url: `/internal/requests?identifier=${encodeURIComponent(IDENTIFIER)}`,
      headers: { authorization: 'Bearer the-callers-token', 'x-public-base': 'http://api.example', 'x-forwarded-for': expect.stringMatching(/127\.0\.0\.1$/) },
    });
  });

  it.each([
    [400, 'invalid', 'identifier: required (the ServiceRequest identifier URI)'],
    [410, 'deleted', 'the patient data of this request was erased on 2026-12-01T10:00:00.000Z'],
  ])("passes intake's %s with its OperationOutcome through, not to be cached", async (status, code, diagnostics) => {
    const body = JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code, diagnostics }] });
    answer = fhirJson(status, body);

    const response = await request(gatewayTo(client)).get('/api/v2/fhir/ServiceRequest?foo=1');

    expect(response.status).toBe(status);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text).toBe(body);
    expect(seen.at(-1)?.url).toBe('/internal/requests?foo=1');
  });

  it('answers 503 with Retry-After when intake is not reachable', async () => {
    const unreachable = new IntakeRequestsClient('http://127.0.0.1:1');

    const response = await request(gatewayTo(unreachable)).get(`/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(IDENTIFIER)}`);
    await unreachable.close();

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'transient' }] });
  });
});
