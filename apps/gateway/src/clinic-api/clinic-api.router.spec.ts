import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { createEnvelope, IntakeVerdictV1, type Envelope, type MessageDefinition } from '@bedrequest/contracts';
import { fhirTask } from '@bedrequest/fhir-model/testing';
import { BrokerUnavailableError, PublishRejectedError } from '@bedrequest/messaging';
import { captureLogger, type CapturedLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { IntakeClient } from '../fhir/intake.client';
import { clinicApiRouter } from './clinic-api.router';

// A person of the clinic (userId) other than the party (partyId): an answer names the person.
const clinic: Principal = { partyId: 'clinic-party-1', userId: 'clinic-user-1', userName: 'Erika Muster', role: 'clinic', ikNumbers: ['510000001'] };
const TASK_ID = '5a0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c11';
const ANSWER_TIMEOUT_MS = 1_000;
/** The Task as intake sends it back after an accepted answer. */
const acceptedTask = fhirTask({ id: TASK_ID, clinicIk: '510000001', businessStatus: 'accepted' });

type BrokerBehaviour = { reply?: IntakeVerdictV1 } | { fail: Error };

/**
 * The clinic API with a stand-in for intake's internal read API (an HTTP server in this process,
 * read through the real IntakeClient) and an in-process broker whose reply is intake's verdict. The
 * whole path is tested against the real services in tools/e2e/request-flow.int.spec.ts.
 */
describe('clinic API: /api/v1/clinic/tasks', () => {
  let intake: Server;
  let intakeClient: IntakeClient;
  let reads: { url: string; headers: IncomingHttpHeaders }[];
  /** What the stand-in answers; a string body goes out as it is (intake's bytes). */
  let intakeAnswer: { status: number; body: unknown };
  let published: { definition: MessageDefinition; payload: unknown; meta: { correlationId: string }; replyTimeoutMs: number }[];
  let broker: BrokerBehaviour;
  let logger: CapturedLogger;

  beforeAll(async () => {
    intake = createServer((req, res) => {
      reads.push({ url: req.url ?? '', headers: req.headers });
      const body = typeof intakeAnswer.body === 'string' ? intakeAnswer.body : JSON.stringify(intakeAnswer.body);
      res.writeHead(intakeAnswer.status, { 'content-type': 'application/fhir+json' }).end(body);
    });
    await new Promise<void>((resolve) => intake.listen(0, '127.0.0.1', resolve));
    intakeClient = new IntakeClient(`http://127.0.0.1:${(intake.address() as AddressInfo).port}`, 2_000);
  });
  beforeEach(() => {
    reads = [];
    published = [];
    intakeAnswer = { status: 200, body: {} };
    broker = {};
    logger = captureLogger('info');
  });
  afterAll(async () => {
    await intakeClient.close();
    intake.closeAllConnections();
    await new Promise((resolve) => intake.close(resolve));
  });

  const gateway = (client: IntakeClient = intakeClient) =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = clinic;
        res.locals.accessToken = 'the-clinics-token';
        next();
      })
      .use(
        '/api/v1/clinic',
        clinicApiRouter({
          intake: client,
          broker: {
            publishAndAwaitReply: async (definition, payload, meta, replyTimeoutMs) => {
              published.push({ definition, payload, meta, replyTimeoutMs });
              if ('fail' in broker) throw broker.fail;
              const reply: Envelope | undefined = broker.reply && createEnvelope(IntakeVerdictV1, broker.reply, meta);
              return { envelope: createEnvelope(definition, payload, meta), reply };
            },
          },
          answerTimeoutMs: ANSWER_TIMEOUT_MS,
          logger: logger.logger,
        }),
      );

  describe('GET /tasks/{taskId}/bundle', () => {
    it("answers the bundle as application/fhir+json, asking intake with the clinic's token", async () => {
      const bundle = { resourceType: 'Bundle', type: 'collection', entry: [] };
      intakeAnswer = { status: 200, body: bundle };

      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/bundle`).set('x-correlation-id', 'read-1');

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/fhir\+json/);
      expect(JSON.parse(response.text)).toEqual(bundle);
      expect(reads).toEqual([
        {
          url: `/internal/tasks/${TASK_ID}/bundle`,
          headers: expect.objectContaining({ authorization: 'Bearer the-clinics-token', 'x-correlation-id': 'read-1' }),
        },
      ]);
    });

    it('answers 404 for a Task intake does not show this clinic', async () => {
      intakeAnswer = { status: 404, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found' }] } };

      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/bundle`);

      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'not_found', message: expect.any(String) });
    });

    it("answers 410 (gone) with intake's reason once the request's patient data was erased, for the bundle, the documents and one document", async () => {
      const reason =
        'the patient data of this request was erased on 2026-11-22T10:00:00.000Z (data protection); its Task remains, with its states, as a tombstone';
      intakeAnswer = { status: 410, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'deleted', diagnostics: reason }] } };

      for (const read of ['bundle', 'documents', 'documents/0']) {
        const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/${read}`);
        expect([read, response.status, response.body]).toEqual([read, 410, { error: 'gone', message: reason }]);
      }
    });

    it('answers 404 for a Task id that is not a UUID without asking intake', async () => {
      const response = await request(gateway()).get('/api/v1/clinic/tasks/not-a-uuid/bundle');

      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'not_found', message: expect.any(String) });
      expect(reads).toEqual([]);
    });

    it('answers 503 with Retry-After when intake answers outside its contract (another status)', async () => {
      intakeAnswer = { status: 409, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'conflict', diagnostics: 'x' }] } };

      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/bundle`);

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual({ error: 'unavailable', message: expect.any(String) });
    });

    it('answers 503 with Retry-After when intake is not reachable', async () => {
      const unreachable = new IntakeClient('http://127.0.0.1:1', 2_000);
      try {
        const response = await request(gateway(unreachable)).get(`/api/v1/clinic/tasks/${TASK_ID}/bundle`);

        expect(response.status).toBe(503);
        expect(response.headers['retry-after']).toBe('5');
        expect(response.body).toEqual({ error: 'unavailable', message: expect.any(String) });
      } finally {
        await unreachable.close();
      }
    });
  });

  describe('GET /tasks/{taskId}/documents', () => {
    it("passes intake's page on as it came (total, items, next), as JSON not to be stored", async () => {
      const page = '{"total":3,"items":[{"resourceType":"Bundle","type":"document"}],  "next":"?_count=1&_offset=1"}';
      intakeAnswer = { status: 200, body: page };

      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/documents`);

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/json/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.text).toBe(page);
      expect(reads[0]?.url).toBe(`/internal/tasks/${TASK_ID}/documents`);
    });

    it('asks intake for the page the clinic asked for: _count and _offset', async () => {
      intakeAnswer = { status: 200, body: { total: 0, items: [] } };

      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/documents?_count=5&_offset=10`);

      expect(response.status).toBe(200);
      expect(reads.map((read) => read.url)).toEqual([`/internal/tasks/${TASK_ID}/documents?_count=5&_offset=10`]);
    });

    it.each([
      ['an unknown parameter', '?_page=2', 'unknown parameter _page (known: _count, _offset)'],
      ['a _count that is not a number', '?_count=ten', '_count: a whole number from 1 to 50'],
      ['a negative _offset', '?_offset=-1', '_offset: a whole number from 0'],
      ['_count twice', '?_count=1&_count=2', '_count: a whole number from 1 to 50'],
    ])('answers 400 naming the parameter, without asking intake, for %s', async (_, query, message) => {
      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/documents${query}`);

      expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message }]);
      expect(reads).toEqual([]);
    });

    it("answers intake's refusal of a value it checks (a _count over 50) as 400 with its message", async () => {
      const diagnostics = '_count: a whole number from 1 to 50';
      intakeAnswer = { status: 400, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid', diagnostics }] } };

      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/documents?_count=51`);

      expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message: diagnostics }]);
    });
  });

  describe('GET /tasks/{taskId}/documents/{n}', () => {
    it('answers the one DocumentBundle at that position as application/fhir+json, not to be stored, asking intake for it alone', async () => {
      const bundle = '{"resourceType":"Bundle","type":"document","entry":[]}';
      intakeAnswer = { status: 200, body: bundle };

      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/documents/2`).set('x-correlation-id', 'read-2');

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/fhir\+json/);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.text).toBe(bundle);
      expect(reads).toEqual([
        {
          url: `/internal/tasks/${TASK_ID}/documents/2`,
          headers: expect.objectContaining({ authorization: 'Bearer the-clinics-token', 'x-correlation-id': 'read-2' }),
        },
      ]);
    });

    it('answers 404 for a position past the last document', async () => {
      intakeAnswer = { status: 404, body: { resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-found', diagnostics: 'x' }] } };

      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/documents/7`);

      expect([response.status, response.body]).toEqual([404, { error: 'not_found', message: 'no such Task, or no document at this position' }]);
    });

    it.each(['-1', 'first', '1.5', '12345678'])('answers 404 for the position %s without asking intake', async (position) => {
      const response = await request(gateway()).get(`/api/v1/clinic/tasks/${TASK_ID}/documents/${position}`);

      expect(response.status).toBe(404);
      expect(reads).toEqual([]);
    });
  });

  describe('POST /tasks/{taskId}/answer', () => {
    const answer = (body: unknown, taskId = TASK_ID) =>
      request(gateway())
        .post(`/api/v1/clinic/tasks/${taskId}/answer`)
        .set('x-correlation-id', 'answer-1')
        .send(body as object);

    it("publishes the answer for this clinic's IK and answers 200 with the updated Task", async () => {
      broker = { reply: { outcome: 'accepted', issues: [], task: acceptedTask } };

      const response = await answer({ businessStatus: 'accepted', note: 'Aufnahme am 1.12. möglich' });

      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toMatch(/^application\/fhir\+json/);
      expect(response.text).toBe(JSON.stringify(acceptedTask));
      expect(published).toEqual([
        {
          definition: expect.objectContaining({ routingKey: 'clinic.answer.submitted.v1' }),
          payload: {
            taskId: TASK_ID,
            clinicIk: '510000001',
            businessStatus: 'accepted',
            source: 'clinic',
            note: 'Aufnahme am 1.12. möglich',
            // Who of the clinic answered and from where, for the AuditEvent of the change.
            user: 'clinic-user-1',
            userName: 'Erika Muster',
            clientAddress: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/),
          },
          meta: { correlationId: 'answer-1' },
          replyTimeoutMs: ANSWER_TIMEOUT_MS,
        },
      ]);
    });

    it('answers 202 {"status": "queued"} when intake does not answer in time', async () => {
      broker = { reply: undefined };

      const response = await answer({ businessStatus: 'declined' });

      expect(response.status).toBe(202);
      expect(response.body).toMatchObject({ status: 'queued' });
    });

    it.each([
      [404, 'not_found', 'not-found', "another clinic's Task"],
      [409, 'conflict', 'conflict', 'the Task is cancelled'],
    ] as const)('answers %i when intake refuses the answer (%s)', async (status, error, refusal, diagnostics) => {
      broker = { reply: { outcome: 'rejected', refusal, issues: [{ code: refusal, diagnostics }] } };

      const response = await answer({ businessStatus: 'accepted' });

      expect(response.status).toBe(status);
      expect(response.body).toEqual({ error, message: diagnostics });
    });

    describe('with If-Match (docs/api.md, "Clinic API")', () => {
      const answerIf = (ifMatch: string) =>
        request(gateway()).post(`/api/v1/clinic/tasks/${TASK_ID}/answer`).set('if-match', ifMatch).send({ businessStatus: 'accepted' });
      const sentTags = () => (published[0]?.payload as { ifMatch?: string[] } | undefined)?.ifMatch;

      it.each([
        ['one weak tag', 'W/"2-5-abc"', ['2-5-abc']],
        ['a list, weak and strong, with empty elements', ' W/"2-5-abc" ,, "3-1-x",', ['2-5-abc', '3-1-x']],
      ])("passes %s to intake as opaque tags, and answers the Task's new tag as ETag", async (_, ifMatch, tags) => {
        broker = { reply: { outcome: 'accepted', issues: [], task: acceptedTask, taskTag: '2-6-def' } };

        const response = await answerIf(ifMatch);

        expect([response.status, response.headers['etag']]).toEqual([200, 'W/"2-6-def"']);
        expect(sentTags()).toEqual(tags);
      });

      it('passes * on as no precondition: any Task that exists', async () => {
        broker = { reply: { outcome: 'accepted', issues: [], task: acceptedTask } };

        expect((await answerIf('*')).status).toBe(200);
        expect(published[0]?.payload).not.toHaveProperty('ifMatch');
      });

      it("answers intake's refusal of a tag the Task no longer has as 412 precondition_failed, with the current tag as ETag", async () => {
        broker = {
          reply: { outcome: 'rejected', refusal: 'precondition-failed', issues: [{ code: 'conflict', diagnostics: 'the Task changed' }], taskTag: '3-7-ghi' },
        };

        const response = await answerIf('W/"2-5-abc"');

        expect([response.status, response.body, response.headers['etag']]).toEqual([
          412,
          { error: 'precondition_failed', message: 'the Task changed' },
          'W/"3-7-ghi"',
        ]);
      });

      it.each([
        ['a tag without quotes', '2-5-abc'],
        ['two tags without a comma', '"a" "b"'],
        ['* in a list', '*, "a"'],
        ['an empty value', ' '],
        ['a tag over 64 characters', `"${'x'.repeat(65)}"`],
        ['more than 20 tags', Array.from({ length: 21 }, (_, n) => `"${n}"`).join(', ')],
      ])('answers 400 without publishing for %s', async (_, ifMatch) => {
        const response = await answerIf(ifMatch);

        expect([response.status, response.body.error]).toEqual([400, 'invalid_request']);
        expect(response.body.message).toMatch(/^If-Match: /);
        expect(published).toEqual([]);
      });
    });

    it.each([
      ['an unknown businessStatus', { businessStatus: 'maybe' }, 'businessStatus: must be one of accepted, declined, query, more-data-required'],
      ['no businessStatus', { note: 'hello' }, 'businessStatus: is required'],
      ['a note over 4000 characters', { businessStatus: 'query', note: 'x'.repeat(4001) }, 'note: must be at most 4000 characters'],
      ['a note with U+0000', { businessStatus: 'query', note: 'a\u0000b' }, 'note: must not contain U+0000 or unpaired surrogates'],
      ['an unknown field', { businessStatus: 'query', notes: 'hello' }, 'notes: not allowed'],
      [
        'a body larger than any answer',
        { businessStatus: 'query', note: 'x'.repeat(100_000) },
        'note: must be at most 4000 characters (the body is larger than 32 KiB, more than any valid answer)',
      ],
    ])('answers 400 naming the field, without publishing, for %s', async (_, body, message) => {
      const response = await answer(body);

      expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message }]);
      expect(published).toEqual([]);
    });

    it('answers an empty body with 400 "the request body is empty"', async () => {
      const response = await request(gateway()).post(`/api/v1/clinic/tasks/${TASK_ID}/answer`);

      expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message: 'the request body is empty' }]);
    });

    it('logs a refused answer once with the refused fields, not the note', async () => {
      await answer({ businessStatus: 'maybe', note: 'Patientin Erika Mustermann', ward: 3 });

      const refusals = logger
        .text()
        .split('\n')
        .filter((line) => line.includes('"request refused"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(refusals).toEqual([
        expect.objectContaining({
          status: 400,
          correlationId: 'answer-1',
          issues: [
            { code: 'invalid', expression: 'businessStatus' },
            { code: 'structure', expression: 'ward' },
          ],
        }),
      ]);
      expect(logger.text()).not.toContain('Mustermann');
    });

    it('accepts a note of exactly 4000 characters', async () => {
      broker = { reply: { outcome: 'accepted', issues: [], task: acceptedTask } };

      expect((await answer({ businessStatus: 'query', note: 'x'.repeat(4000) })).status).toBe(200);
    });

    it('answers 404 for a Task id that is not a UUID without publishing', async () => {
      const response = await answer({ businessStatus: 'accepted' }, 'not-a-uuid');

      expect(response.status).toBe(404);
      expect(published).toEqual([]);
    });

    it.each([
      ['the broker is not connected', new BrokerUnavailableError('no connection')],
      ['the broker did not confirm the message', new PublishRejectedError('nack')],
    ])('answers 503 with Retry-After when %s', async (_, error) => {
      broker = { fail: error };

      const response = await answer({ businessStatus: 'accepted' });

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual({ error: 'unavailable', message: expect.any(String) });
    });
  });

  describe('POST /tasks/{taskId}/withdraw-acceptance (docs/decisions.md, "Clinics answer")', () => {
    const withdrawn = fhirTask({ id: TASK_ID, clinicIk: '510000001', businessStatus: 'declined', notes: ['Bett belegt'] });
    const withdraw = (body: unknown, headers: Record<string, string> = {}, taskId = TASK_ID) =>
      request(gateway())
        .post(`/api/v1/clinic/tasks/${taskId}/withdraw-acceptance`)
        .set({ 'x-correlation-id': 'withdraw-1', ...headers })
        .send(body as object);

    it("publishes the withdrawal as this clinic's decline with the reason as its note, If-Match as tags, and answers 200 with the Task and its ETag", async () => {
      broker = { reply: { outcome: 'accepted', issues: [], task: withdrawn, taskTag: '3-4-abc' } };

      const response = await withdraw({ reason: 'Bett belegt' }, { 'if-match': 'W/"3-3-xyz"' });

      expect([response.status, response.headers['etag'], response.text]).toEqual([200, 'W/"3-4-abc"', JSON.stringify(withdrawn)]);
      expect(published).toEqual([
        {
          definition: expect.objectContaining({ routingKey: 'clinic.answer.submitted.v1' }),
          payload: {
            taskId: TASK_ID,
            clinicIk: '510000001',
            businessStatus: 'declined',
            source: 'clinic',
            note: 'Bett belegt',
            withdrawsAcceptance: true,
            user: 'clinic-user-1',
            userName: 'Erika Muster',
            clientAddress: expect.any(String),
            ifMatch: ['3-3-xyz'],
          },
          meta: { correlationId: 'withdraw-1' },
          replyTimeoutMs: ANSWER_TIMEOUT_MS,
        },
      ]);
    });

    it.each([
      [404, 'not_found', 'not-found', "another clinic's Task"],
      [409, 'conflict', 'conflict', 'this clinic is not selected for the request'],
      [412, 'precondition_failed', 'precondition-failed', 'the Task changed'],
    ] as const)('answers %i when intake refuses it (%s)', async (status, error, refusal, diagnostics) => {
      broker = { reply: { outcome: 'rejected', refusal, issues: [{ code: 'conflict', diagnostics }] } };

      const response = await withdraw({ reason: 'Bett belegt' });

      expect([response.status, response.body]).toEqual([status, { error, message: diagnostics }]);
    });

    it.each([
      ['no reason', {}, 'reason: is required'],
      ['an empty reason', { reason: '' }, 'reason: must not be empty'],
      ['a blank reason', { reason: '  ' }, 'reason: must not be blank'],
      ['a reason over 4000 characters', { reason: 'x'.repeat(4001) }, 'reason: must be at most 4000 characters'],
      ['an unknown field', { reason: 'Bett belegt', businessStatus: 'declined' }, 'businessStatus: not allowed'],
      [
        'a body larger than any withdrawal',
        { reason: 'x'.repeat(100_000) },
        'reason: must be at most 4000 characters (the body is larger than 32 KiB, more than any valid withdrawal)',
      ],
    ])('answers 400 naming the field, without publishing, for %s', async (_, body, message) => {
      const response = await withdraw(body);

      expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message }]);
      expect(published).toEqual([]);
    });

    it('answers 404 for a Task id that is not a UUID, and 400 for a malformed If-Match, without publishing', async () => {
      expect((await withdraw({ reason: 'Bett belegt' }, {}, 'not-a-uuid')).status).toBe(404);
      expect((await withdraw({ reason: 'Bett belegt' }, { 'if-match': 'no-quotes' })).status).toBe(400);
      expect(published).toEqual([]);
    });
  });
});
