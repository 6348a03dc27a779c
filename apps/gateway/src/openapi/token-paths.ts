// The /api/v1/token paths: the auth service's token endpoints, as the gateway passes them on.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { LoginRequest, RefreshRequest, RevokeRequest, TokenResponse, TokenServiceStatus } from '@bedrequest/contracts';
import { ADDRESS_LIMITED, header, json, jsonBodyRefusals, merged, NO_TOKEN, refusals } from './responses';

/** Served by the auth service; the gateway passes them on unchanged, with Cache-Control and Pragma. */
export function registerTokenPaths(registry: OpenAPIRegistry): void {
  const tokens = { description: 'A new token pair', headers: { 'Cache-Control': header('NoStore'), Pragma: header('NoCache') }, content: json(TokenResponse) };
  const authUnavailable = { 503: 'The authentication service or its store is unavailable' };
  registry.registerPath({
    method: 'post',
    path: '/api/v1/token/login',
    operationId: 'loginWithPassword',
    summary: 'Exchange username and password for a token pair',
    security: NO_TOKEN,
    request: { body: { required: true, content: json(LoginRequest) } },
    responses: {
      200: tokens,
      ...refusals(
        'v1',
        merged(jsonBodyRefusals('16 KiB'), {
          400: 'a field is missing, empty, too long or unknown (the message names it)',
          401: 'Login failed: unknown user, wrong password or disabled user (one answer for all three)',
          429: 'Too many failed logins for this username or from this address, or too many requests per second from this address',
          ...authUnavailable,
        }),
        { challenge: false },
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/token/refresh',
    operationId: 'refreshTokens',
    summary: 'Rotate the refresh token: a fresh pair; the used refresh token is dead (reusing it revokes the family)',
    security: NO_TOKEN,
    request: { body: { required: true, content: json(RefreshRequest) } },
    responses: {
      200: tokens,
      ...refusals(
        'v1',
        merged(jsonBodyRefusals('16 KiB'), ADDRESS_LIMITED, {
          400: 'no refreshToken string, or an unknown field',
          401: 'Not a live refresh token: unknown, expired, already used, revoked, or any other string',
          ...authUnavailable,
        }),
        { challenge: false },
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/token/revoke',
    operationId: 'revokeRefreshToken',
    summary: "Revoke a refresh token (RFC 7009): the token's whole family never refreshes again",
    security: NO_TOKEN,
    request: { body: { required: true, content: json(RevokeRequest) } },
    responses: {
      200: { description: 'Revoked, or not live anyway: no body', headers: { 'Cache-Control': header('NoStore'), Pragma: header('NoCache') } },
      ...refusals(
        'v1',
        merged(jsonBodyRefusals('16 KiB'), ADDRESS_LIMITED, {
          400: 'no refreshToken string, or an unknown field',
          503: 'The authentication service or its store is unavailable: nothing was revoked',
        }),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/token/status',
    operationId: 'readTokenServiceStatus',
    summary: 'Reachability check, without authentication',
    security: NO_TOKEN,
    responses: { 200: { description: 'The service answers', content: json(TokenServiceStatus) }, ...refusals('v1', merged(ADDRESS_LIMITED, authUnavailable)) },
  });
}
