import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { classifyError, HttpError, logServerError, outcomeOf, sendError } from '@bedrequest/http';
import { sendOutcome } from './fhir/fhir-response';

/** Whether the request is on a FHIR endpoint (`/api/v2/fhir`, with or without a path or query after it). */
export function isFhirPath(req: Request): boolean {
  const path = req.originalUrl.split('?')[0] ?? '';
  return path === '/api/v2/fhir' || path.startsWith('/api/v2/fhir/');
}

/**
 * Answers an error in the form of its endpoint (decisions.md, "Errors"): an OperationOutcome on FHIR
 * paths, `{"error", "message"}` elsewhere; the same status either way.
 */
export function answerError(req: Request, res: Response, error: HttpError): void {
  if (!isFhirPath(req)) return sendError(res, error);
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  sendOutcome(res, outcomeOf(error), error.status);
}

/** Unknown paths: 404 `not_found`. */
export const unknownPath: RequestHandler = (req, res) => {
  const message = isFhirPath(req) ? 'no such FHIR endpoint' : `no such endpoint: ${req.method} ${req.path}`;
  answerError(req, res, new HttpError('not_found', message));
};

/**
 * The last error handler: what a route did not answer itself, classified like every service's
 * (`@bedrequest/http`): errors of the caller's making that express raises (unreadable JSON, a body
 * too large, a malformed path) keep their 4xx; anything else is a 500, logged without the request's
 * content.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const httpError = classifyError(error);
    logServerError(logger, req, httpError);
    answerError(req, res, httpError);
  };
}
