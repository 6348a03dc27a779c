import { HttpError } from '@bedrequest/http';

/**
 * The auth service's failures, each with its answer (`@bedrequest/http`'s code table); the one
 * jsonErrorHandler mounted in start.ts sends them as `{"error", "message"}` (docs/decisions.md, "Errors").
 */

/** Unknown user, wrong password or disabled user: one answer for all three, so none is revealed (401). */
export class InvalidCredentialsError extends HttpError {
  override name = 'InvalidCredentialsError';
  constructor() {
    super('invalid_credentials', 'username or password is wrong');
  }
}

/** Unknown, expired, used or revoked refresh token (401): the client must log in again. */
export class InvalidRefreshTokenError extends HttpError {
  override name = 'InvalidRefreshTokenError';
  constructor() {
    super('invalid_refresh_token', 'the refresh token is invalid or expired; log in with username and password');
  }
}

/** Too many failed logins for this username or client address (429). */
export class TooManyAttemptsError extends HttpError {
  override name = 'TooManyAttemptsError';
  constructor(retryAfterSeconds: number) {
    super('too_many_requests', 'too many failed logins; try again later', { retryAfterSeconds });
  }
}

/** Redis or PostgreSQL did not answer (503): the request may be retried in 5 s. */
export class StoreUnavailableError extends HttpError {
  override name = 'StoreUnavailableError';
  constructor(store: string, cause: unknown) {
    super('unavailable', 'the authentication service is temporarily unavailable', { retryAfterSeconds: 5, cause, detail: `${store} unavailable` });
  }
}
