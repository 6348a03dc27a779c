import { randomBytes } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import { decodeJwt } from 'jose';
import type { Logger } from 'pino';
import type { TokenResponse } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { clientAddressOf } from '@bedrequest/observability';
import { PartyClaims } from '@bedrequest/tokens';
import type { SessionRecord, SessionStore } from '../session/session-store';
import { LoginRefusedError, type ApiCaller, type InboxApi } from './inbox-api';

/** The inbox's cookies, both httpOnly, SameSite=Strict, on /inbox only. */
export const COOKIES = {
  /** The session's id: all the browser holds of it (the tokens stay in the session store). */
  session: 'inbox_session',
  /** A random id of the login form, for its CSRF token before there is a session. */
  login: 'inbox_login',
  /** Where the person left the list, sealed under a key of the session (list-routes.ts); ends with it. */
  list: 'inbox_list',
} as const;

/**
 * Whose pages a set of sessions serves: the role whose logins it takes, the path its cookies are
 * bound to, and their names. The clinic inbox's by default; the hospital's workspace has its own
 * (apps/web/src/workspace), so that neither ever takes the other's session.
 */
export interface SessionScope {
  readonly role: 'clinic' | 'referrer';
  readonly path: string;
  readonly cookies: { readonly session: string; readonly login: string; readonly list?: string };
}

export const INBOX_SCOPE: SessionScope = { role: 'clinic', path: '/inbox', cookies: COOKIES };

export interface InboxSession {
  readonly id: string;
  readonly accessToken: string;
  readonly principal: SessionRecord['principal'];
}

/**
 * The inbox's sessions: the browser holds a session id in an httpOnly cookie, the session store (in
 * Redis, shared by every web process) holds the person's tokens, and the access token is renewed with
 * refresh-token rotation, once across all processes, shortly before it expires.
 */
export class InboxSessions {
  constructor(
    private readonly options: {
      api: InboxApi;
      store: SessionStore;
      secureCookies: boolean;
      /** Renew the access token when less than this is left of its lifetime (WEB_SESSION_REFRESH_MARGIN_SECONDS). */
      refreshMarginMs: number;
      logger: Logger;
      /** The clinic inbox's when absent. */
      scope?: SessionScope;
    },
  ) {}

  get scope(): SessionScope {
    return this.options.scope ?? INBOX_SCOPE;
  }

  get cookieOptions(): CookieOptions {
    return { httpOnly: true, sameSite: 'strict', secure: this.options.secureCookies, path: this.scope.path };
  }

  /**
   * Starts a session after a successful login, under a new id (never one the browser brought).
   * Undefined, and nothing stored, for tokens that are not of the scope's role.
   */
  async start(res: Response, pair: TokenResponse): Promise<InboxSession | undefined> {
    const principal = principalOf(pair.accessToken);
    if (principal?.role !== this.scope.role) return undefined;
    const id = this.options.store.newId();
    await this.options.store.create(id, { accessToken: pair.accessToken, refreshToken: pair.refreshToken, principal });
    res.cookie(this.scope.cookies.session, id, this.cookieOptions);
    res.clearCookie(this.scope.cookies.login, this.cookieOptions);
    return { id, accessToken: pair.accessToken, principal };
  }

  /** Ends the session: gone from the store, its cookie cleared. Returns its refresh token, for revoking. */
  async end(req: Request, res: Response): Promise<string | undefined> {
    const { cookies } = this.scope;
    res.clearCookie(cookies.session, this.cookieOptions);
    if (cookies.list) res.clearCookie(cookies.list, this.cookieOptions);
    const id = cookiesOf(req).get(cookies.session);
    if (!id) return undefined;
    const record = await this.options.store.load(id);
    await this.options.store.remove(id);
    return record?.refreshToken;
  }

  /** The login form's pre-session id: the one the browser has, or a new one. */
  loginId(req: Request, res: Response): string {
    const existing = cookiesOf(req).get(this.scope.cookies.login);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const id = randomBytes(32).toString('base64url');
    res.cookie(this.scope.cookies.login, id, this.cookieOptions);
    return id;
  }

  /**
   * The request's session, its access token renewed first when it is about to expire; undefined
   * (and the cookie cleared) when there is none, it has ended (idle or too old: the session store)
   * or its refresh token was refused. `used`: the person made this request, which starts the idle
   * time again (the live list's polling is not the person's doing and does not).
   */
  async resolve(req: Request, res: Response, { used = true }: { used?: boolean } = {}): Promise<InboxSession | undefined> {
    const id = cookiesOf(req).get(this.scope.cookies.session);
    if (!id) return undefined;
    let record = await this.options.store.load(id, { used });
    // Another scope's session (its id put into this scope's cookie by hand) is none here.
    if (record && record.principal.role !== this.scope.role) record = undefined;
    if (record && this.expiresSoon(record)) {
      record = await this.renewed(id, record, { correlationId: String(req.headers['x-correlation-id']), clientAddress: clientAddressOf(req) });
    }
    if (!record) {
      res.clearCookie(this.scope.cookies.session, this.cookieOptions);
      return undefined;
    }
    return { id, accessToken: record.accessToken, principal: record.principal };
  }

  private expiresSoon(record: SessionRecord): boolean {
    return (expiryOf(record.accessToken) ?? 0) - Date.now() < this.options.refreshMarginMs;
  }

  /**
   * The session renewed once across every process. Only a refusal of its refresh token ends it: a
   * renewal refused for now (429, the person's address over the gateway's limit) or not answered
   * leaves it as it is, and while its access token lasts the request goes on with that (a later
   * request renews); after that it throws, and the page asks to wait (429, Retry-After) or says the
   * service is unavailable, the session kept.
   */
  private async renewed(id: string, record: SessionRecord, caller: ApiCaller): Promise<SessionRecord | undefined> {
    try {
      return await this.options.store.renewOnce(
        id,
        (current) => this.expiresSoon(current),
        (current) => this.renew(current, caller),
      );
    } catch (error) {
      if ((expiryOf(record.accessToken) ?? 0) <= Date.now()) throw error;
      this.options.logger.warn(
        { reason: error instanceof Error ? error.message : String(error) },
        'inbox session not renewed for now: its access token serves on',
      );
      return record;
    }
  }

  /** A new pair for the session; undefined when the token endpoint refuses its refresh token (the session has ended). */
  private async renew(record: SessionRecord, caller: ApiCaller): Promise<SessionRecord | undefined> {
    try {
      const pair = await this.options.api.refresh(record.refreshToken, caller);
      const principal = principalOf(pair.accessToken);
      return principal ? { ...record, accessToken: pair.accessToken, refreshToken: pair.refreshToken, principal } : undefined;
    } catch (error) {
      if (!(error instanceof LoginRefusedError)) throw error;
      if (error.reason === 'too_many_requests') {
        throw new HttpError('too_many_requests', 'the renewal of the session was refused for now', { retryAfterSeconds: error.retryAfterSeconds ?? 1 });
      }
      // 401 (the token expired, was revoked or reused) or 400 (not a token auth reads): no renewal can follow.
      this.options.logger.info({ reason: error.reason }, 'inbox session ended: the refresh token was refused');
      return undefined;
    }
  }
}

/**
 * Who a token is for, read from its claims without verifying its signature: the token came from the
 * token endpoint over the web app's own connection and is kept where the browser cannot touch it,
 * and the API verifies it on every use. Undefined for a token whose claims are not a party's.
 */
export function principalOf(accessToken: string): SessionRecord['principal'] | undefined {
  try {
    const claims = PartyClaims.safeParse(decodeJwt(accessToken));
    return claims.success ? { partyId: claims.data.sub, role: claims.data.role, ikNumbers: claims.data.ik } : undefined;
  } catch {
    return undefined;
  }
}

/** `exp` of a JWT in milliseconds, read without verifying (only to decide when to renew). */
export function expiryOf(jwt: string): number | undefined {
  try {
    const { exp } = decodeJwt(jwt);
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the Cookie header; values are URI-decoded as express's `res.cookie` encodes them. */
export function cookiesOf(req: Request): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const pair of (req.headers.cookie ?? '').split(';')) {
    const separator = pair.indexOf('=');
    if (separator < 0) continue;
    const name = pair.slice(0, separator).trim();
    if (!name || cookies.has(name)) continue;
    try {
      cookies.set(name, decodeURIComponent(pair.slice(separator + 1).trim()));
    } catch {
      // a value that is not URI-encoded is none of ours
    }
  }
  return cookies;
}
