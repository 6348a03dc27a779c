import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { erasedMessage, outcome } from '@bedrequest/fhir-model';
import { classifyError, HttpError, logServerError, outcomeOf } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf } from '../access';
import type { RequestReadService } from './request-read.service';

/**
 * `GET /internal/requests?identifier=<uri>`, called by the gateway with the referrer's forwarded
 * access token (docs/api.md, "Reading a request back"): 200 with a searchset (one request of the
 * caller's party with its latest version, or none: another party's request is not told apart from
 * an unknown one), 400 for a missing or malformed identifier or another parameter, 406 for a
 * `_format` other than JSON, 410 once the request's patient data was erased; a clinic's token 403.
 * Answered as FHIR JSON, which the gateway passes on unread.
 */
export function requestReadRouter(reads: RequestReadService, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  const fhirJson = (res: Response, status: number, body: unknown) => res.status(status).type('application/fhir+json').send(JSON.stringify(body));
  router.get('/internal/requests', requireToken({ verifier, roles: ['referrer'] }), async (req, res) => {
    const base = (req.header('x-public-base') ?? '').replace(/\/+$/, '');
    const read = await reads.search(req.query, callerOf(req, res), { base, path: '/api/v2/fhir/ServiceRequest' });
    if ('ok' in read) return fhirJson(res, read.status, outcome(read.issues));
    if (read.outcome === 'erased') throw new HttpError('gone', erasedMessage(read.erasedAt));
    return fhirJson(res, 200, read.bundle);
  });
  // The refusals above and any failure, as an OperationOutcome with the status of its code (@bedrequest/http).
  router.use('/internal/requests', (error: unknown, req: Request, res: Response, _next: (error?: unknown) => void) => {
    const failure = classifyError(error);
    logServerError(logger, req, failure);
    fhirJson(res, failure.status, outcomeOf(failure));
  });
  return router;
}
