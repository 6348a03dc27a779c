/**
 * The auth service's failures. http/error-handler.ts is the one place that turns them into
 * `{"error", "message"}` answers (decisions.md, "Errors": non-FHIR endpoints).
 */

/** The request body is not what the endpoint takes (400). */
export class InvalidRequestError extends Error {
  override name = 'InvalidRequestError';
}

/** Unknown user, wrong password or disabled user: one answer for all three, so none is revealed (401). */
export class InvalidCredentialsError extends Error {
  override name = 'InvalidCredentialsError';
  constructor() {
    super('username or password is wrong');
  }
}

/** Unknown, expired, used or revoked refresh token (401): the client must log in again. */
export class InvalidRefreshTokenError extends Error {
  override name = 'InvalidRefreshTokenError';
  constructor() {
    super('the refresh token is invalid or expired; log in with username and password');
  }
}

/** Too many failed logins for this username or client address (429). */
export class TooManyAttemptsError extends Error {
  override name = 'TooManyAttemptsError';
  constructor(readonly retryAfterSeconds: number) {
    super('too many failed logins; try again later');
  }
}

/** Redis or PostgreSQL did not answer (503): the request may be retried. */
export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  readonly retryAfterSeconds = 5;
  constructor(store: string, cause: unknown) {
    super(`${store} unavailable`, { cause });
  }
}
