import type { ErrorRequestHandler, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { notFound, outcome, serverError, tooLarge } from '@bedrequest/fhir-model';
import { sendOutcome } from './fhir/fhir-response';

const isFhirPath = (url: string) => url.startsWith('/api/v2/fhir');

/** Unknown paths: an OperationOutcome under /api/v2/fhir, `{"error","message"}` elsewhere (decisions.md, "Errors"). */
export const unknownPath: RequestHandler = (req, res) => {
  if (isFhirPath(req.originalUrl)) return sendOutcome(res, notFound('no such FHIR endpoint'));
  res.status(404).json({ error: 'not_found', message: `no such endpoint: ${req.method} ${req.path}` });
};

/**
 * The last error handler: what a route did not answer itself. Errors of the caller's making that
 * express raises (unreadable JSON, a body too large, a malformed path) keep their 4xx; anything
 * else is a 500, logged without the request's content.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: { status?: number; statusCode?: number; type?: string; message?: string }, req, res, next) => {
    if (res.headersSent) return next(error);
    const status = error.status ?? error.statusCode;
    const fhir = isFhirPath(req.originalUrl);
    if (status && status >= 400 && status < 500) {
      const message = error.type === 'entity.parse.failed' ? 'the body is not valid JSON' : error.type === 'entity.too.large' ? 'the body is too large' : (error.message ?? 'bad request');
      if (fhir) return sendOutcome(res, status === 413 ? tooLarge(message) : outcome([{ code: 'invalid', diagnostics: message }]), status);
      return res.status(status).json({ error: status === 413 ? 'too_large' : 'invalid_request', message });
    }
    logger.error({ err: error.message ?? String(error) }, 'request failed');
    if (fhir) return sendOutcome(res, serverError());
    res.status(500).json({ error: 'internal_error', message: 'internal error' });
  };
}
