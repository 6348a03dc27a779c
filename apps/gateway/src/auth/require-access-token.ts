import type { RequestHandler, Response } from 'express';
import { HttpError } from '@bedrequest/http';
import { answerError } from '../http-errors';
import { InvalidAccessTokenError, SigningKeysUnavailableError, type AccessTokenVerifier } from './access-token-verifier';
import type { Principal, Role } from './principal';

const REALM = 'bedrequest';

/**
 * Guards business routes: a valid bearer access token (verified locally) of one of `roles`, else
 * 401 with `WWW-Authenticate: Bearer` (spec, Authentication 2, 4, 7) or 403 for a role the route is
 * not for (decisions.md, "Errors"). FHIR paths answer with an OperationOutcome, /api/v1 paths with
 * `{"error", "message"}`. The verified party is in `res.locals.principal` for the route.
 */
export function requireAccessToken(options: { verifier: AccessTokenVerifier; roles: readonly Role[] }): RequestHandler {
  return async (req, res, next) => {
    const token = bearerToken(req.headers.authorization);
    if (!token) {
      res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}"`);
      return answerError(req, res, new HttpError('unauthorized', 'a bearer access token is required'));
    }
    let principal: Principal;
    try {
      principal = await options.verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidAccessTokenError) {
        res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}", error="invalid_token", error_description="${error.message}"`);
        return answerError(req, res, new HttpError('unauthorized', error.message));
      }
      if (error instanceof SigningKeysUnavailableError) {
        return answerError(req, res, new HttpError('unavailable', 'the access token cannot be checked right now', { retryAfterSeconds: 5 }));
      }
      return next(error);
    }
    if (!options.roles.includes(principal.role)) {
      res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}", error="insufficient_scope"`);
      return answerError(req, res, new HttpError('forbidden', `a ${principal.role} token may not use this endpoint`));
    }
    res.locals.principal = principal;
    next();
  };
}

/** The principal requireAccessToken put on the response; throws when a route forgot the guard. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal;
  if (!principal) throw new Error('route is not behind requireAccessToken');
  return principal;
}

function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header ?? '');
  return match?.[1];
}

