import express, { Router, type NextFunction, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { CLIENT_ASSERTION_TYPE, CLIENT_GRANT_TYPE, scopeRefusal } from '@bedrequest/tokens';
import { CLIENT_TOKEN_LIFETIME_SECONDS, type AccessTokenIssuer } from '../token/access-token.service';
import { noStore } from '../token/token.router';
import { allowedScopesOf, permissionsOfScopes } from './client';
import type { ClientAuthenticator } from './client-assertion';
import { OAuthError } from './oauth-error';

/** The parameters the endpoint reads; each may be given once (RFC 6749 3.2). */
const PARAMETERS = ['grant_type', 'client_assertion_type', 'client_assertion', 'scope', 'client_id'] as const;
type Parameters = Partial<Record<(typeof PARAMETERS)[number], string>>;

/**
 * `POST /api/v1/token/oauth2` (docs/parties.md, "System clients and scopes"): OAuth 2.0 client
 * credentials (RFC 6749 4.4) with a JWT client assertion (RFC 7523, SMART Backend Services). The
 * body is form-encoded, at most 16 KiB; the answer is RFC 6749's token response (5.1, no refresh
 * token) or its error (5.2). The assertion itself is never logged.
 */
export function oauth2TokenRouter(deps: { authenticator: ClientAuthenticator; issuer: AccessTokenIssuer; logger: Logger }): Router {
  const router = Router();
  router.post('/', express.text({ type: () => true, limit: '16kb' }), async (req, res) => {
    // Taken before the client is read, so that a disable committed meanwhile revokes the token (as for logins).
    const issuedAtMs = deps.issuer.now();
    const parameters = parametersOf(req);
    const { client, party } = await deps.authenticator.authenticate(parameters.client_assertion, parameters.client_id);
    const scopes = grantedScopes(parameters.scope, allowedScopesOf(client, party.role), client.id);
    const accessToken = await deps.issuer.issueForClient(party, client, scopes, issuedAtMs);
    deps.logger.info({ clientId: client.id, partyId: party.id, role: party.role, scope: scopes.join(' ') }, 'client token issued');
    noStore(res).json({ access_token: accessToken, token_type: 'Bearer', expires_in: CLIENT_TOKEN_LIFETIME_SECONDS, scope: scopes.join(' ') });
  });
  router.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const refusal = oauthErrorOf(error);
    if (!refusal) return next(error);
    deps.logger.info({ clientId: refusal.clientId, error: refusal.error, description: refusal.description }, 'client token refused');
    noStore(res).status(refusal.status).json({ error: refusal.error, error_description: refusal.description });
  });
  return router;
}

/** The request's parameters, checked as RFC 6749 4.4.2 and RFC 7523 2.2 ask; throws OAuthError. */
function parametersOf(req: Request): Parameters & { client_assertion: string } {
  if (!req.is('application/x-www-form-urlencoded')) throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  const form = new URLSearchParams(typeof req.body === 'string' ? req.body : '');
  const parameters: Parameters = {};
  for (const name of PARAMETERS) {
    // RFC 6749 3.1: a parameter sent without a value is as if it were left out.
    const values = form.getAll(name).filter((value) => value !== '');
    if (values.length > 1) throw new OAuthError('invalid_request', `the parameter ${name} is given more than once`);
    if (values[0] !== undefined) parameters[name] = values[0];
  }
  if (parameters.grant_type === undefined) throw new OAuthError('invalid_request', 'missing parameter grant_type');
  if (parameters.grant_type !== CLIENT_GRANT_TYPE) {
    throw new OAuthError('unsupported_grant_type', `grant_type "${parameters.grant_type.slice(0, 60)}" is not supported here (client_credentials only)`);
  }
  if (parameters.client_assertion_type === undefined) throw new OAuthError('invalid_request', 'missing parameter client_assertion_type');
  if (parameters.client_assertion_type !== CLIENT_ASSERTION_TYPE) {
    throw new OAuthError('invalid_request', `client_assertion_type must be ${CLIENT_ASSERTION_TYPE}`);
  }
  const assertion = parameters.client_assertion;
  if (assertion === undefined) throw new OAuthError('invalid_request', 'missing parameter client_assertion');
  return { ...parameters, client_assertion: assertion };
}

/**
 * The scopes granted: those asked for, each one the client may hold (a subset of a registered scope
 * passes, `system/Task.r` of `system/Task.rs`), or all it may hold when it asks for none.
 */
function grantedScopes(requested: string | undefined, allowed: readonly string[], clientId: string): string[] {
  if (requested === undefined) return [...allowed];
  const scopes = [...new Set(requested.split(' ').filter(Boolean))];
  if (scopes.length === 0) return [...allowed];
  const permissions = permissionsOfScopes(allowed);
  for (const scope of scopes) {
    const refusal = scopeRefusal(scope, permissions);
    if (refusal) throw Object.assign(new OAuthError('invalid_scope', refusal), { clientId });
  }
  return scopes;
}

/** An OAuthError, or a body the parser refused (too large, a charset it cannot read) as invalid_request. */
function oauthErrorOf(error: unknown): OAuthError | undefined {
  if (error instanceof OAuthError) return error;
  const type = (error as { type?: unknown } | null)?.type;
  if (type === 'entity.too.large') return new OAuthError('invalid_request', 'the body is larger than 16 KiB');
  if ((typeof type === 'string' && type.startsWith('charset.')) || type === 'encoding.unsupported') {
    return new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded in UTF-8');
  }
  return undefined;
}
