import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { errorHandler } from '../http-errors';
import { IntakeClient } from './intake.client';
import { taskRouter } from './task.router';

const principal: Principal = { partyId: 'referrer-1', userId: 'referrer-1', role: 'referrer', ikNumbers: ['260000001', '260000002'] };

/**
 * The gateway side of the Task reads against a stand-in for intake's internal API (the real API is
 * tested in apps/intake/src/http/internal.router.int.spec.ts).
 */
describe('GET /api/v2/fhir/Task through the intake client', () => {
  let intake: Server;
  let intakeUrl: string;
  let answer: (res: ServerResponse) => void;
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  let connections = 0;
  const clients: IntakeClient[] = [];

  beforeAll(async () => {
    intake = createServer((req, res) => {
      seen.push({ url: req.url ?? '', headers: req.headers });
      answer(res);
    });
    intake.on('connection', () => connections++);
    await new Promise<void>((resolve) => intake.listen(0, '127.0.0.1', resolve));
    intakeUrl = `http://127.0.0.1:${(intake.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    intake.closeAllConnections();
    await new Promise((resolve) => intake.close(resolve));
  });

  const gateway = (client: IntakeClient) => {
    clients.push(client);
    return express()
      .use((_req, res, next) => {
        res.locals.principal = principal;
        res.locals.accessToken = 'the-callers-token';
        next();
      })
      .use('/api/v2/fhir', taskRouter(client))
      .use(errorHandler(silentLogger()));
  };
  const fhirJson = (status: number, body: string) => (res: ServerResponse) =>
    res.writeHead(status, { 'content-type': 'application/fhir+json; charset=utf-8' }).end(body);

  it("passes intake's answer through unchanged and forwards the caller's token, the search and the public base", async () => {
    // Key order and spacing as intake wrote them: the gateway does not parse and re-serialise.
    const body = '{"resourceType":"Bundle", "type":"searchset","total":0,"entry":[]}';
    answer = fhirJson(200, body);

    const response = await request(gateway(new IntakeClient(intakeUrl)))
      .get('/api/v2/fhir/Task?based-on=https%3A%2F%2Fhospital.example%2Ffhir%2FServiceRequest%2F1&_count=5')
      .set('host', 'api.example')
      .set('x-correlation-id', 'poll-1');

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
    expect(response.text).toBe(body);
    expect(seen.at(-1)).toMatchObject({
      url: '/internal/tasks?based-on=https%3A%2F%2Fhospital.example%2Ffhir%2FServiceRequest%2F1&_count=5',
      headers: { authorization: 'Bearer the-callers-token', 'x-public-base': 'http://api.example' },
    });
    // Who asks is the token's party, which intake verifies: no header claims it.
    expect(Object.keys(seen.at(-1)!.headers).filter((name) => name.startsWith('x-viewer'))).toEqual([]);
  });

  it("passes intake's refusals through with their status", async () => {
    const body = JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found', diagnostics: 'no such Task' }] });
    answer = fhirJson(404, body);

    const response = await request(gateway(new IntakeClient(intakeUrl))).get('/api/v2/fhir/Task/5a0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c11');

    expect(response.status).toBe(404);
    expect(response.text).toBe(body);
    expect(seen.at(-1)!.url).toBe('/internal/tasks/5a0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c11');
  });

  it("asks intake for a Task id as one path segment, with the caller's correlation id", async () => {
    answer = fhirJson(404, '{"resourceType":"OperationOutcome"}');

    await request(gateway(new IntakeClient(intakeUrl)))
      .get('/api/v2/fhir/Task/a%2F..%2Fdocuments')
      .set('x-correlation-id', 'poll-2');

    expect(seen.at(-1)!.url).toBe('/internal/tasks/a%2F..%2Fdocuments');
    expect(seen.at(-1)!.headers['x-correlation-id']).toBe('poll-2');
  });

  it('keeps its connections to intake open between polls', async () => {
    answer = fhirJson(200, '{"resourceType":"Bundle"}');
    const app = gateway(new IntakeClient(intakeUrl));
    const before = connections;

    for (let poll = 0; poll < 5; poll++) expect((await request(app).get('/api/v2/fhir/Task')).status).toBe(200);

    expect(connections - before).toBe(1);
  });

  it('answers 503 with Retry-After when intake is not reachable', async () => {
    const response = await request(gateway(new IntakeClient('http://127.0.0.1:1'))).get('/api/v2/fhir/Task');

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'transient' }] });
  });

  it("answers 503 when what answers is not intake's JSON (a proxy's error page)", async () => {
    answer = (res) => res.writeHead(502, { 'content-type': 'text/html' }).end('<html>Bad Gateway</html>');

    const response = await request(gateway(new IntakeClient(intakeUrl))).get('/api/v2/fhir/Task');

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
  });

  it.each([
    ['nothing', () => undefined],
    ['the headers and part of the body', (res: ServerResponse) => res.writeHead(200, { 'content-type': 'application/fhir+json' }).write('{"resourceType":')],
  ])('answers 503 when intake sends %s within the deadline', async (_what, partial) => {
    // A fake clock for the client's deadline; the sockets and the turns of the event loop are real.
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    try {
      let arrived!: () => void;
      const intakeHasIt = new Promise<void>((resolve) => (arrived = resolve));
      answer = (res) => {
        partial(res);
        arrived();
      };

      const status = request(gateway(new IntakeClient(intakeUrl, 200)))
        .get('/api/v2/fhir/Task')
        .then((response) => response.status);
      await intakeHasIt;
      // Intake sends no more: the client's deadline ends the wait (without it, the test would time out).
      await jest.advanceTimersByTimeAsync(200);

      expect(await status).toBe(503);
    } finally {
      jest.useRealTimers();
    }
  });

  it("passes a clinic read's 200 on unread with its page query, reads intake's refusals with their contract, and answers 503 for anything else", async () => {
    const client = new IntakeClient(intakeUrl);
    clients.push(client);
    const call = { token: 't', correlationId: 'c', publicBase: 'http://api.example' };
    const refusal = (diagnostics: string) => JSON.stringify({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'x', diagnostics }] });

    answer = fhirJson(200, '{"total":1, "items":[{"a":1}]}');
    expect(await client.clinicRead('x', 'documents', new URLSearchParams({ _count: '1' }), call)).toEqual({
      status: 200,
      body: Buffer.from('{"total":1, "items":[{"a":1}]}'),
    });
    expect(seen.at(-1)!.url).toBe('/internal/tasks/x/documents?_count=1');
    answer = fhirJson(404, refusal('no such Task, or no document at this position'));
    expect(await client.clinicRead('x', 'documents/3', undefined, call)).toEqual({ status: 404 });
    expect(seen.at(-1)!.url).toBe('/internal/tasks/x/documents/3');
    answer = fhirJson(410, refusal('erased on 2026-11-22'));
    expect(await client.clinicRead('x', 'bundle', undefined, call)).toEqual({ status: 410, message: 'erased on 2026-11-22' });
    answer = fhirJson(400, refusal('_count: a whole number from 1 to 50'));
    expect(await client.clinicRead('x', 'documents', undefined, call)).toEqual({ status: 400, message: '_count: a whole number from 1 to 50' });

    answer = fhirJson(410, '{"resourceType":"OperationOutcome","issue":[]}');
    await expect(client.clinicRead('x', 'bundle', undefined, call)).rejects.toMatchObject({
      name: 'UpstreamUnavailableError',
      status: 503,
      retryAfterSeconds: 5,
    });
    answer = fhirJson(500, '{"resourceType":"OperationOutcome"}');
    await expect(client.clinicRead('x', 'bundle', undefined, call)).rejects.toMatchObject({ name: 'UpstreamUnavailableError' });
  });
});
