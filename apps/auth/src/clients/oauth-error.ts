/**
 * An RFC 6749 5.2 error of the client credentials token endpoint, answered as
 * `{"error", "error_description"}`; the description says what was wrong and quotes nothing secret.
 */
export class OAuthError extends Error {
  override name = 'OAuthError';
  /** The client the request named (the assertion's `iss`), for the log line; never in the answer. */
  clientId?: string;

  constructor(
    readonly error: 'invalid_request' | 'invalid_client' | 'unsupported_grant_type' | 'invalid_scope',
    readonly description: string,
  ) {
    super(description);
  }

  /** RFC 6749 5.2: 401 for a client that did not authenticate, 400 for the rest. */
  get status(): number {
    return this.error === 'invalid_client' ? 401 : 400;
  }
}

export const invalidClient = (description: string) => new OAuthError('invalid_client', description);
