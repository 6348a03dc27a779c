import type { ErrorRequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import {
  InvalidCredentialsError,
  InvalidRefreshTokenError,
  InvalidRequestError,
  StoreUnavailableError,
  TooManyAttemptsError,
} from '../errors';

/** `{"error": "<code>", "message": "<text>"}` (decisions.md, "Errors": non-FHIR endpoints). */
export function sendError(res: Response, status: number, error: string, message: string): void {
  res.status(status).json({ error, message });
}

/** The one place where the auth service's typed errors become HTTP answers. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (error instanceof InvalidRequestError) return sendError(res, 400, 'invalid_request', error.message);
    if (error instanceof InvalidCredentialsError) return sendError(res, 401, 'invalid_credentials', error.message);
    if (error instanceof InvalidRefreshTokenError) return sendError(res, 401, 'invalid_refresh_token', error.message);
    if (error instanceof TooManyAttemptsError) {
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
      return sendError(res, 429, 'too_many_requests', error.message);
    }
    if (error instanceof StoreUnavailableError) {
      logger.warn({ err: error.message, cause: (error.cause as Error | undefined)?.message }, 'store unavailable');
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
      return sendError(res, 503, 'unavailable', 'the authentication service is temporarily unavailable');
    }
    // body-parser's own errors: malformed JSON (400), body over the limit (413).
    const parserError = error as { type?: string; status?: number };
    if (parserError.type === 'entity.parse.failed') return sendError(res, 400, 'invalid_request', 'the request body is not valid JSON');
    if (parserError.type === 'entity.too.large') return sendError(res, 413, 'payload_too_large', 'the request body is too large');
    logger.error({ err: error instanceof Error ? error.message : String(error) }, 'request failed');
    return sendError(res, 500, 'internal', 'internal error');
  };
}
