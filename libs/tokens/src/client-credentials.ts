/**
 * What the gateway's discovery document announces and auth's token endpoint holds system clients
 * to (docs/parties.md, "System clients and scopes"): one place, so that the two cannot differ.
 */

/** The token endpoint of system clients, under the public API (the gateway forwards it to auth). */
export const CLIENT_TOKEN_PATH = '/api/v1/token/oauth2';

/** The algorithms a client may sign its assertion with (SMART Backend Services asks for RS384 and ES384). */
export const CLIENT_ASSERTION_ALGORITHMS = ['RS384', 'ES384'] as const;

/** The one grant of system clients (RFC 6749 4.4) and how they authenticate (RFC 7523, OIDC's name for it). */
export const CLIENT_GRANT_TYPE = 'client_credentials';
export const CLIENT_AUTH_METHOD = 'private_key_jwt';
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';

/**
 * The token endpoint as callers reach it, `API_PUBLIC_URL` with the path: announced by discovery
 * and required as the `aud` of every client assertion. A trailing slash of the address is dropped,
 * a path prefix (an API behind `/bedrequest`) kept.
 */
export function clientTokenEndpoint(publicApiUrl: string): string {
  return `${publicApiUrl.replace(/\/+$/, '')}${CLIENT_TOKEN_PATH}`;
}
