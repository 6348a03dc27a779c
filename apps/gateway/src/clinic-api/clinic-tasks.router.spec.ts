import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { captureLogger } from '@bedrequest/testing';
import { ClinicTaskReadsClient, clinicTasksRouter } from './clinic-tasks.router';

const TASK_ID = '5a0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c11';

/**
 * The clinic's version reads with a stand-in for intake's internal API (an HTTP server in this
 * process, read through the real ClinicTaskReadsClient). The whole path is tested against the real
 * services in tools/e2e/inbox/clinic-tasks-api.int.spec.ts.
 */
describe('clinic API: /api/v1/clinic/tasks/{taskId}/versions', () => {
  let intake: Server;
  let reads: ClinicTaskReadsClient;
  let asked: string[];
  let intakeAnswer: { status: number; body: string };

  beforeAll(async () => {
    intake = createServer((req, res) => {
      asked.push(req.url ?? '');
      res.writeHead(intakeAnswer.status, { 'content-type': 'application/json' }).end(intakeAnswer.body);
    });
    await new Promise<void>((resolve) => intake.listen(0, '127.0.0.1', resolve));
    reads = new ClinicTaskReadsClient(`http://127.0.0.1:${(intake.address() as AddressInfo).port}`, 2_000);
  });
  beforeEach(() => {
    asked = [];
    intakeAnswer = { status: 200, body: '{"total":0,"items":[]}' };
  });
  afterAll(async () => {
    await reads.close();
    intake.closeAllConnections();
    await new Promise((resolve) => intake.close(resolve));
  });

  const gateway = () =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = { partyId: 'clinic-user-1', userId: 'clinic-user-1', role: 'clinic', ikNumbers: ['510000001'] };
        res.locals.accessToken = 'the-clinics-token';
        next();
      })
      .use('/api/v1/clinic', clinicTasksRouter({ reads, logger: captureLogger('info').logger }));

  it("passes intake's page on as it came, not to be stored", async () => {
    intakeAnswer = { status: 200, body: '{"total":3,"items":[{"version":3}], "next":"?_count=1&_offset=1&_sort=-version"}' };

    const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/versions`);

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.text).toBe(intakeAnswer.body);
    expect(asked).toEqual([`/internal/clinic-tasks/${TASK_ID}/versions`]);
  });

  it('asks intake for the page the clinic asked for: _count, _offset and _sort', async () => {
    const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/versions?_sort=-version&_count=10&_offset=0`);

    expect(response.status).toBe(200);
    expect(asked).toEqual([`/internal/clinic-tasks/${TASK_ID}/versions?_count=10&_offset=0&_sort=-version`]);
  });

  it.each([
    ['an unknown parameter', '?since=2026-01-01T00:00:00Z', 'unknown parameter since (known: _count, _offset, _sort)'],
    ['another _sort', '?_sort=receivedAt', '_sort: version or -version'],
    ['a _count that is not a number', '?_count=many', '_count: a whole number from 1 to 50'],
    ['an _offset that is not a number', '?_offset=1e3', '_offset: a whole number from 0'],
  ])('answers 400 naming the parameter, without asking intake, for %s', async (_, query, message) => {
    const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/versions${query}`);

    expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message }]);
    expect(asked).toEqual([]);
  });

  it("passes intake's own 400 on (a value it checks: a _count over 50)", async () => {
    intakeAnswer = { status: 400, body: '{"error":"invalid_request","message":"_count: a whole number from 1 to 50"}' };

    const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/versions?_count=99`);

    expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message: '_count: a whole number from 1 to 50' }]);
  });
});
