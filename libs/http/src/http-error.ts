import { errorCodes, type ErrorCode } from './error-codes';

export interface HttpErrorOptions {
  /** Sent as `Retry-After` (seconds). */
  retryAfterSeconds?: number;
  /** What failed underneath; logged (name and message), never sent. */
  cause?: unknown;
  /** Text for the log only, e.g. which store was unreachable; never sent. */
  detail?: string;
}

/**
 * A failure with its answer: the code (errorCodes gives the status) and a message the caller may
 * read. Throw it from a route; jsonErrorHandler (or the gateway's FHIR handler) answers it.
 */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly detail: string | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = errorCodes[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.detail = options.detail;
  }
}
