import type { ErrorRequestHandler, Request, Response } from 'express';
import type { Logger } from 'pino';
import { classifyError, type DomainErrors } from './classify';
import { type HttpError } from './http-error';

/** `{"error": "<code>", "message": "<text>"}` (docs/decisions.md, "Errors": non-FHIR endpoints), with `Retry-After` where the error has one. */
export function sendError(res: Response, error: HttpError): void {
  if (error.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  res.status(error.status).json({ error: error.code, message: error.message });
}

/**
 * Logs a failure that is the service's, not the caller's (5xx). Only names, codes and stack frames
 * of unexpected errors are logged, never their messages: a message can quote the data it failed on
 * (V8's JSON and zod messages echo the input), and requests carry patient data. 4xx are not logged
 * here; the request log already has their status.
 */
export function logServerError(logger: Logger, req: Request, error: HttpError): void {
  if (error.status < 500) return;
  const request = { method: req.method, path: req.originalUrl.split('?')[0] };
  if (error.code === 'internal_error') {
    logger.error({ ...request, ...describeUnexpected(error.cause) }, 'request failed');
    return;
  }
  const cause = error.cause instanceof Error ? `${error.cause.name}: ${error.cause.message}` : undefined;
  logger.warn(
    { ...request, code: error.code, err: error.detail ?? error.message, cause },
    'request failed: a backing service is unavailable or answered unexpectedly',
  );
}

/**
 * The one error handler of every JSON router (/api/v1 and internal): typed errors, body-parser's
 * errors and unexpected failures all answer `{"error", "message"}` with the status of their code.
 * `domainErrors` maps the service's own error classes (those that do not extend HttpError).
 */
export function jsonErrorHandler(logger: Logger, options: { domainErrors?: DomainErrors } = {}): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    const httpError = classifyError(error, options.domainErrors);
    logServerError(logger, req, httpError);
    sendError(res, httpError);
  };
}

function describeUnexpected(error: unknown): { errorType: string; errorCode?: string; stack?: string[] } {
  if (!(error instanceof Error)) return { errorType: typeof error };
  const code = (error as { code?: unknown }).code;
  // The first stack line repeats the message; the frames say where it failed.
  const frames = error.stack
    ?.split('\n')
    .slice(1, 6)
    .map((frame) => frame.trim());
  return { errorType: error.name, ...(typeof code === 'string' ? { errorCode: code } : {}), ...(frames ? { stack: frames } : {}) };
}
