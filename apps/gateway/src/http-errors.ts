import type { ErrorRequestHandler, Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import { classifyError, HttpError, logServerError, outcomeOf, sendError } from '@bedrequest/http';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { sendOutcome } from './fhir/fhir-response';

/** A path is quoted back (in a 404 or 405 message, a log line) at most this long. */
const MAX_QUOTED_PATH_LENGTH = 200;
/** A refusal's log line names at most this many issues (a bundle may have thousands). */
const MAX_LOGGED_ISSUES = 20;

/** The request's path as the caller sent it (not as a mounted router sees it), without the query. */
function pathOf(req: Request): string {
  return req.originalUrl.split('?')[0] ?? '';
}

/** Whether the request is on a FHIR endpoint (`/api/v2/fhir`, with or without a path or query after it). */
export function isFhirPath(req: Request): boolean {
  const path = pathOf(req);
  return path === '/api/v2/fhir' || path.startsWith('/api/v2/fhir/');
}

/** The path to quote in a message: as sent, shortened, so that the answer stays small whatever the path. */
export function quotedPath(req: Request): string {
  const path = pathOf(req);
  return path.length <= MAX_QUOTED_PATH_LENGTH ? path : `${path.slice(0, MAX_QUOTED_PATH_LENGTH)}…`;
}

/**
 * Answers an error in the form of its endpoint (docs/decisions.md, "Errors"): an OperationOutcome on FHIR
 * paths (one issue per refused element when the error names them), `{"error", "message"}`
 * elsewhere; the same status either way.
 */
export function answerError(req: Request, res: Response, error: HttpError): void {
  if (!isFhirPath(req)) return sendError(res, error);
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  sendOutcome(res, outcomeOf(error), error.status);
}

/** Unknown paths: 404 `not_found`. */
export const unknownPath: RequestHandler = (req, res) => {
  const message = isFhirPath(req) ? `no such FHIR endpoint: ${quotedPath(req)}` : `no such endpoint: ${req.method} ${quotedPath(req)}`;
  answerError(req, res, new HttpError('not_found', message));
};

/**
 * The gateway's one error path, at the end of every router and of the app: what a route threw or
 * did not answer itself, classified like every service's (`@bedrequest/http`): errors of the
 * caller's making that express raises (unreadable JSON, a body too large, a malformed path) keep
 * their 4xx; anything else is a 500, logged without the request's content. A refusal that says
 * what it refused (a bundle or a clinic answer that failed validation, or that intake refused) is
 * logged here once, with its issues' codes and expressions.
 */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const httpError = classifyError(error);
    logServerError(logger, req, httpError);
    logRefusal(logger, req, httpError);
    answerError(req, res, httpError);
  };
}

/**
 * What an operator needs to see why a caller's bundle or answer was refused: the status, and per
 * issue its code and FHIRPath expression (or field name). Never the diagnostics: they may quote
 * the values sent, which are patient data.
 */
function logRefusal(logger: Logger, req: Request, error: HttpError): void {
  if (error.status >= 500 || !error.issues?.length) return;
  const issues = error.issues
    .slice(0, MAX_LOGGED_ISSUES)
    .map(({ code, expression }) => ({ code, ...(expression ? { expression: shortened(expression) } : {}) }));
  logger.info(
    {
      correlationId: req.headers[CORRELATION_HEADER],
      method: req.method,
      path: quotedPath(req),
      status: error.status,
      issues,
      ...(error.issues.length > MAX_LOGGED_ISSUES ? { issueCount: error.issues.length } : {}),
    },
    'request refused',
  );
}

function shortened(text: string): string {
  return text.length <= MAX_QUOTED_PATH_LENGTH ? text : `${text.slice(0, MAX_QUOTED_PATH_LENGTH)}…`;
}
