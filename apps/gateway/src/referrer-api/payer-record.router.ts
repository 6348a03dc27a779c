import express, { Router, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpError, type InternalClient, type RawAnswer } from '@bedrequest/http';
import { forwardedCallOf, ForwardingIntakeClient, intakeConnection } from '../fhir/intake.client';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { errorHandler } from '../http-errors';
import { jsonBody } from '../json-body';

/**
 * The largest file `POST /api/v1/records/verify` takes (intake's MAX_VERIFIED_RECORD_BYTES): a
 * record of a request with 50 clinics and the Task history's limit of 300 entries each is about
 * 3 MB as PDF.
 */
export const MAX_VERIFIED_RECORD_BYTES = 10 * 1024 * 1024;

/** A Task id: a UUID. Anything else is not found, without asking intake. */
const TaskId = z.uuid();
const Format = z.strictObject({ format: z.enum(['pdf', 'csv']) });
const RecordAnswer = z.object({ fileName: z.string(), contentType: z.string(), content: z.base64() });
const Identifier = z.strictObject({ identifier: z.string().min(1).max(1024) });
const ReadyForTransfer = z.strictObject({ identifier: z.string().min(1).max(1024), readyAt: z.iso.datetime({ offset: true }).nullable() });

const UNAVAILABLE = 'the record service is unavailable; please retry';

/** Intake's record endpoints (`/internal/payer-records…`), with the referrer's forwarded token where one is needed. */
export class PayerRecordClient extends ForwardingIntakeClient {
  /** Verify and the JWKS: no token. */
  private readonly open: InternalClient;

  constructor(intakeUrl: string, timeoutMs = 30_000) {
    super(intakeUrl, '/internal/payer-records', UNAVAILABLE, { timeoutMs, connections: 4 });
    this.open = intakeConnection(intakeUrl, UNAVAILABLE, { timeoutMs, connections: 2 });
  }

  verify(file: Buffer, correlationId: string): Promise<RawAnswer> {
    return this.open.raw({ method: 'POST', path: '/internal/payer-records/verify', body: file, contentType: 'application/octet-stream', correlationId });
  }

  jwks(correlationId: string): Promise<RawAnswer> {
    return this.open.raw({ method: 'GET', path: '/internal/payer-records/jwks', correlationId });
  }

  override async close(): Promise<void> {
    await Promise.all([super.close(), this.open.close()]);
  }
}

const pass = (res: Response, answer: RawAnswer) => {
  res.status(answer.status);
  if (answer.status === 204) return void res.end();
  res.type('application/json').send(answer.body);
};

/**
 * The hospital's record for the payer (docs/api.md, "The record for the payer"; referrer tokens,
 * mounted at `/api/v1/referrer`), `Cache-Control: no-store` on every answer:
 *
 * - `GET /records/{taskId}?format=pdf|csv`: the signed record of the request of any of its Tasks,
 *   addressed as the workspace addresses a request (by a Task id, no identifier or patient data in
 *   the URL); 404 for another party's, 410 once the patient data was erased.
 * - `PUT /ready-for-transfer` `{identifier, readyAt|null}` and `POST /ready-for-transfer/_read`
 *   `{identifier}`: when the patient was ready for transfer, with the hospital's own data.
 */
export function referrerRecordRouter(options: { records: PayerRecordClient; logger: Logger }): Router {
  const router = Router();
  const { records } = options;
  router.use((_req, res, next) => {
    res.set('cache-control', 'no-store');
    next();
  });
  const body = jsonBody({ limit: 8 * 1024 });
  router.get('/records/:taskId', async (req, res) => {
    const id = TaskId.safeParse(req.params.taskId);
    if (!id.success) throw new HttpError('not_found', 'no such request');
    const { format } = HttpError.parseInput(Format, req.query);
    const answer = await records.call('GET', `/${id.data}`, forwardedCallOf(req, res), { query: new URLSearchParams({ format }) });
    if (answer.status !== 200) return pass(res, answer);
    const record = RecordAnswer.parse(JSON.parse(answer.body.toString('utf8')));
    res
      .status(200)
      .set('content-type', record.contentType)
      .set('content-disposition', `attachment; filename="${record.fileName}"`)
      .send(Buffer.from(record.content, 'base64'));
  });
  router.put('/ready-for-transfer', ...body, async (req, res) => {
    const input = HttpError.parseInput(ReadyForTransfer, req.body);
    pass(res, await records.call('PUT', '/ready-for-transfer', forwardedCallOf(req, res), { json: input }));
  });
  router.post('/ready-for-transfer/_read', ...body, async (req, res) => {
    const input = HttpError.parseInput(Identifier, req.body);
    pass(res, await records.call('POST', '/ready-for-transfer/_read', forwardedCallOf(req, res), { json: input }));
  });
  router.use(errorHandler(options.logger));
  return router;
}

/**
 * Verifying a record, without a token (docs/api.md, "The record for the payer"): anyone holding one
 * (a payer, a court) may check it. `POST /api/v1/records/verify` with the file as the body (any
 * content type, at most 10 MiB, else 413): `{valid: true, kind, request, sha256, signedAt, kid}` or
 * `{valid: false, reason, message}`. `GET /api/v1/records/jwks`: the public keys.
 */
export function publicRecordRouter(options: { records: PayerRecordClient; logger: Logger }): Router {
  const router = Router();
  const { records } = options;
  router.use((_req, res, next) => {
    res.set('cache-control', 'no-store');
    next();
  });
  const correlation = (req: express.Request) => String(req.headers[CORRELATION_HEADER] ?? '');
  router.post('/verify', express.raw({ type: () => true, limit: MAX_VERIFIED_RECORD_BYTES }), async (req, res) => {
    const file = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    pass(res, await records.verify(file, correlation(req)));
  });
  router.get('/jwks', async (req, res) => {
    pass(res, await records.jwks(correlation(req)));
  });
  router.use(errorHandler(options.logger));
  return router;
}
