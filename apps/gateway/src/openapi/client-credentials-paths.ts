// SMART Backend Services: the discovery document, the token endpoint of system clients, and the
// security scheme naming their scopes (docs/parties.md, "System clients and scopes").
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { CLIENT_ASSERTION_ALGORITHMS, CLIENT_ASSERTION_TYPE, CLIENT_GRANT_TYPE, CLIENT_TOKEN_PATH, SCOPE_CATALOGUE } from '@bedrequest/tokens';
import { ADDRESS_LIMITED, header, json, merged, NO_TOKEN, refusals } from './responses';

export const SmartConfiguration = z
  .object({
    token_endpoint: z.url().describe("The token endpoint under the public API's address (API_PUBLIC_URL), which is also the assertions' `aud`"),
    grant_types_supported: z.array(z.literal(CLIENT_GRANT_TYPE)),
    token_endpoint_auth_methods_supported: z.array(z.literal('private_key_jwt')),
    token_endpoint_auth_signing_alg_values_supported: z.array(z.enum(CLIENT_ASSERTION_ALGORITHMS)),
    scopes_supported: z.array(z.string()),
    capabilities: z.array(z.string()),
  })
  .strict();

const ClientTokenRequest = z
  .object({
    grant_type: z.literal(CLIENT_GRANT_TYPE),
    client_assertion_type: z.literal(CLIENT_ASSERTION_TYPE),
    client_assertion: z
      .string()
      .describe(
        `A JWT signed with ${CLIENT_ASSERTION_ALGORITHMS.join(' or ')} by a key of the client's JWKS (\`kid\` names it): \`iss\` = \`sub\` = the client id, \`aud\` = the token endpoint as discovery names it, \`exp\` at most 300 s ahead, a \`jti\` never used before`,
      ),
    scope: z.string().optional().describe("Space-separated scopes; without it, every scope the client was registered with (by default its party role's)"),
  })
  .strict();

export const ClientTokenResponse = z
  .object({
    access_token: z.string().describe("An access token like a person's, with the client's party, `scope` and `client_id`"),
    token_type: z.literal('Bearer'),
    expires_in: z.number().int().positive(),
    scope: z.string().describe('The scopes granted, space-separated'),
  })
  .strict();

export const OAuthError = z
  .object({
    error: z.enum(['invalid_request', 'invalid_client', 'invalid_scope', 'unsupported_grant_type']),
    error_description: z.string(),
  })
  .strict()
  .describe('RFC 6749 5.2');

/** The scheme system clients' tokens belong to: OAuth 2.0 client credentials with the catalogue's scopes; its name. */
export function registerSystemClientScheme(registry: OpenAPIRegistry): string {
  return registry.registerComponent('securitySchemes', 'systemClient', {
    type: 'oauth2',
    description:
      "SMART Backend Services: a registered client authenticates with `private_key_jwt` and gets an access token with the scopes it asked for; each route lets a client's token through only with its scope (else 403 `insufficient_scope`). People's tokens (bearer) carry no scope and keep every right of their role.",
    flows: {
      clientCredentials: {
        tokenUrl: CLIENT_TOKEN_PATH,
        scopes: Object.fromEntries(Object.entries(SCOPE_CATALOGUE).map(([scope, entry]) => [scope, `${entry.grants} (${entry.roles.join(', ')})`])),
      },
    },
  }).name;
}

export function registerClientCredentialsPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/api/v2/fhir/.well-known/smart-configuration',
    operationId: 'readSmartConfiguration',
    summary: "SMART's discovery document (App Launch 2, Backend Services), without a token",
    security: NO_TOKEN,
    responses: {
      200: { description: 'Where and how system clients get tokens, and the scopes', content: json(SmartConfiguration) },
      ...refusals('fhir', ADDRESS_LIMITED),
    },
  });
  const noStore = { 'Cache-Control': header('NoStore'), Pragma: header('NoCache') };
  registry.registerPath({
    method: 'post',
    path: CLIENT_TOKEN_PATH,
    operationId: 'requestClientToken',
    summary: "A system client's access token (OAuth 2.0 client credentials, RFC 6749 4.4, with a JWT assertion, RFC 7523)",
    security: NO_TOKEN,
    request: { body: { required: true, content: { 'application/x-www-form-urlencoded': { schema: ClientTokenRequest } } } },
    responses: {
      200: { description: 'The token; no refresh token (a client asks again with a new assertion)', headers: noStore, content: json(ClientTokenResponse) },
      400: {
        description:
          "invalid_request (a parameter missing or repeated, not form-encoded), unsupported_grant_type, invalid_scope (unknown, or not within the client's role or registration)",
        headers: noStore,
        content: json(OAuthError),
      },
      401: {
        description:
          'invalid_client: the assertion does not authenticate a live client (unknown or disabled client or party, unknown key, bad signature or algorithm, wrong audience, expired, exp too far ahead, jti used before, keys not fetchable)',
        headers: noStore,
        content: json(OAuthError),
      },
      ...refusals('v1', merged(ADDRESS_LIMITED, { 413: 'A body larger than 16 KiB', 503: 'The authentication service or its store is unavailable' })),
    },
  });
}
