import type { RequestHandler, Response } from 'express';
import { HttpError } from '@bedrequest/http';
import type { Principal, Role } from './claims';
import type { Permission } from './scopes';
import { InvalidAccessTokenError, SigningKeysUnavailableError, type TokenVerifier } from './verifier';

const REALM = 'bedrequest';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The party of a verified access token (requireToken). */
    principal?: Principal;
    /** The service of a verified service token (requireToken). */
    service?: string;
    /** The verified token itself, for forwarding to the service that owns the data. */
    accessToken?: string;
  }
}

export interface RequireTokenOptions {
  verifier: TokenVerifier;
  /** The roles of parties' tokens let through; none: no party token passes. */
  roles?: readonly Role[];
  /** Whether service tokens pass. */
  services?: boolean;
}

/**
 * Guards a route: a valid bearer token (verified locally) of a party in `roles` or, where `services`,
 * of a service; else 401 with `WWW-Authenticate: Bearer` (spec, Authentication 2, 4, 7), 403 for a
 * caller the route is not for (docs/decisions.md, "Errors"), 503 while the signing keys cannot be
 * fetched. The refusal goes to the app's error handler as an HttpError, so each surface answers it
 * in its own form (an OperationOutcome on FHIR paths, `{"error", "message"}` elsewhere). What passed
 * is in `res.locals`: `principal` or `service`, and `accessToken`; its answer is `Cache-Control: no-store`.
 */
export function requireToken(options: RequireTokenOptions): RequestHandler {
  const roles = options.roles ?? [];
  return async (req, res, next) => {
    const token = bearerTokenOf(req.headers.authorization);
    if (!token) {
      res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}"`);
      return next(new HttpError('unauthorized', 'a bearer access token is required'));
    }
    try {
      const caller = await options.verifier.verify(token);
      if (caller.kind === 'service') {
        if (!options.services) return next(refused(res, 'a service token may not use this endpoint'));
        res.locals.service = caller.service;
      } else {
        if (!roles.includes(caller.principal.role)) return next(refused(res, `a ${caller.principal.role} token may not use this endpoint`));
        res.locals.principal = caller.principal;
      }
      res.locals.accessToken = token;
      // What a party is answered is its own (patient data, a webhook secret, what it may see): no
      // cache, shared or private, may keep it (RFC 9111 5.2.2.5), whatever the route.
      res.setHeader('Cache-Control', 'no-store');
      next();
    } catch (error) {
      if (error instanceof InvalidAccessTokenError) {
        res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}", error="invalid_token", error_description="${error.message}"`);
        return next(new HttpError('unauthorized', error.message));
      }
      if (error instanceof SigningKeysUnavailableError) {
        return next(new HttpError('unavailable', 'the access token cannot be checked right now', { retryAfterSeconds: 5, cause: error.cause }));
      }
      next(error);
    }
  };
}

/**
 * Lets a system client's token through only when its scopes grant `permission` (docs/parties.md,
 * "System clients and scopes"); a person's token carries no scope and keeps every right of its
 * role. Else 403 `insufficient_scope`, with RFC 6750 3.1's `WWW-Authenticate` naming the scope
 * that grants it. Runs after requireToken.
 */
export function requireScope(permission: Permission): RequestHandler {
  const scope = scopeGranting(permission);
  return (_req, res, next) => {
    const granted = principalOf(res).scopes;
    if (granted === undefined || granted.has(permission)) return next();
    res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}", error="insufficient_scope", scope="${scope}"`);
    next(new HttpError('insufficient_scope', `insufficient_scope: this token was not granted ${scope}`));
  };
}

/** The narrowest scope that grants a permission: `Task.s` → `system/Task.s`; a named scope is its own. */
function scopeGranting(permission: Permission): string {
  return permission.startsWith('api:') ? permission : `system/${permission}`;
}

/** The party requireToken let through; throws when a route forgot the guard. */
export function principalOf(res: Response): Principal {
  const principal = res.locals.principal;
  if (!principal) throw new Error('route is not behind requireToken for parties');
  return principal;
}

/** The verified token of the request, to forward to the service that owns the data. */
export function accessTokenOf(res: Response): string {
  const token = res.locals.accessToken;
  if (!token) throw new Error('route is not behind requireToken');
  return token;
}

function refused(res: Response, message: string): HttpError {
  res.setHeader('WWW-Authenticate', `Bearer realm="${REALM}", error="insufficient_scope"`);
  return new HttpError('forbidden', message);
}

/** The token of an `Authorization: Bearer <token>` header (RFC 6750 2.1); none for any other header. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  const match = /^Bearer[ ]+([A-Za-z0-9\-._~+/]+=*)\s*$/i.exec(header ?? '');
  return match?.[1];
}
