import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf } from '../access';
import type { RecordSigningKeys } from './record-signing-keys';
import { ReadyForTransferInput, type PayerRecordService } from './payer-record.service';

/**
 * The largest file verify takes: a record of a request with the Task history's limit of 300
 * entries for each of 50 clinics is about 3 MB as PDF; 10 MiB leaves room and bounds the work.
 */
export const MAX_VERIFIED_RECORD_BYTES = 10 * 1024 * 1024;

const Format = z.enum(['pdf', 'csv']);

const CONTENT_TYPES = { pdf: 'application/pdf', csv: 'text/csv; charset=utf-8; header=present' } as const;

/**
 * Intake's internal API behind the gateway's record endpoints (docs/api.md, "The record for the
 * payer"). Errors are `{"error", "message"}`, which the gateway passes on.
 *
 * - `GET /internal/payer-records/{taskId}?format=pdf|csv` (referrer token): the signed record of the
 *   request of that Task as `{kind, fileName, contentType, content}` (base64), `Cache-Control:
 *   no-store`; 404 for another party's, 410 once erased.
 * - `PUT /internal/payer-records/ready-for-transfer` `{identifier, readyAt|null}` (referrer token), and
 *   its read `POST …/ready-for-transfer/_read` `{identifier}`: a POST, so that no identifier stands in a URL.
 * - `POST /internal/payer-records/verify` (no token, the file as body): what was signed, or why not.
 * - `GET /internal/payer-records/jwks`: the public keys that verify.
 */
export function payerRecordRouter(records: PayerRecordService, keys: RecordSigningKeys, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  const base = '/internal/payer-records';
  const referrerOnly = requireToken({ verifier, roles: ['referrer'] });
  const noStore = (_req: Request, res: Response, next: () => void) => {
    res.set('cache-control', 'no-store');
    next();
  };
  router.use(base, noStore);

  router.post(`${base}/verify`, express.raw({ type: () => true, limit: MAX_VERIFIED_RECORD_BYTES }), async (req, res) => {
    const file = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    res.json(await records.verify(file));
  });
  router.get(`${base}/jwks`, async (_req, res) => {
    res.json({ keys: await keys.publicJwks() });
  });
  router.put(`${base}/ready-for-transfer`, referrerOnly, express.json({ limit: '8kb' }), async (req, res) => {
    const input = HttpError.parseInput(ReadyForTransferInput, req.body);
    res.json(await records.setReadyForTransfer(input, callerOf(req, res)));
  });
  router.post(`${base}/ready-for-transfer/_read`, referrerOnly, express.json({ limit: '8kb' }), async (req, res) => {
    const { identifier } = HttpError.parseInput(z.strictObject({ identifier: z.string().min(1).max(1024) }), req.body);
    res.json(await records.readyForTransfer(identifier, callerOf(req, res)));
  });
  router.get(`${base}/:taskId`, referrerOnly, async (req, res) => {
    const format = HttpError.parseInput(z.strictObject({ format: Format }), req.query).format;
    const record = await records.record(String(req.params.taskId), format, callerOf(req, res));
    // JSON, as every internal answer (the gateway's internal client reads JSON only): the gateway serves the file.
    res.json({ kind: record.kind, fileName: record.fileName, contentType: CONTENT_TYPES[format], content: record.file.toString('base64') });
  });

  router.use(base, jsonErrorHandler(logger));
  return router;
}
