import type { Request, RequestHandler, Response } from 'express';
import { forbidden, getStatus, unauthorized, unavailable } from '@bedrequest/fhir-model';
import type { OperationOutcome } from '@medplum/fhirtypes';
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
      return deny(req, res, { status: 401, error: 'unauthorized', message: 'a bearer access token is required' });
    }
    let principal: Principal;
    try {
      principal = await options.verifier.verify(token);
    } catch (error) {
      if (error instanceof InvalidAccessTokenError) {
        res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}", error="invalid_token", error_description="${error.message}"`);
        return deny(req, res, { status: 401, error: 'unauthorized', message: error.message });
      }
      if (error instanceof SigningKeysUnavailableError) {
        res.setHeader('Retry-After', '5');
        return deny(req, res, { status: 503, error: 'unavailable', message: 'the access token cannot be checked right now' });
      }
      return next(error);
    }
    if (!options.roles.includes(principal.role)) {
      res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}", error="insufficient_scope"`);
      return deny(req, res, { status: 403, error: 'forbidden', message: `a ${principal.role} token may not use this endpoint` });
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

interface Denial {
  status: 401 | 403 | 503;
  error: string;
  message: string;
}

/** decisions.md, "Errors": OperationOutcome on FHIR endpoints, `{"error", "message"}` elsewhere. */
function deny(req: Request, res: Response, denial: Denial): void {
  if (isFhirPath(req)) {
    const outcomes: Record<Denial['status'], OperationOutcome> = {
      401: unauthorized(denial.message),
      403: forbidden(denial.message),
      503: unavailable(denial.message),
    };
    const outcome = outcomes[denial.status];
    res.status(getStatus(outcome)).type('application/fhir+json').send(JSON.stringify(outcome));
    return;
  }
  res.status(denial.status).json({ error: denial.error, message: denial.message });
}

function isFhirPath(req: Request): boolean {
  const path = req.originalUrl.split('?')[0] ?? '';
  return path === '/api/v2/fhir' || path.startsWith('/api/v2/fhir/');
}
