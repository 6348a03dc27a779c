import { createHash, randomBytes } from 'node:crypto';
import type { CookieOptions, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { TokenResponse } from '@bedrequest/contracts';
import { InvalidAccessTokenError, type Principal, type TokenVerifier } from '@bedrequest/tokens';
import { LoginRefusedError, type InboxApi } from './inbox-api';

/** The session cookies, all httpOnly, SameSite=Strict, on /inbox only. */
export const COOKIES = {
  /** A random id of the session: what its CSRF token is made of; it outlives access token refreshes. */
  session: 'inbox_session',
  access: 'inbox_access',
  refresh: 'inbox_refresh',
  /** A random id of the login form, for its CSRF token before there is a session. */
  login: 'inbox_login',
} as const;

/** Refresh the access token when less than this is left of its lifetime (3600 s). */
const REFRESH_MARGIN_MS = 5 * 60_000;
/**
 * How long a refresh's outcome answers others that present the same (now used) refresh token:
 * requests of one browser that arrive together (a page and a poll, two tabs) carry the same
 * cookies, and a second refresh with a used token would count as reuse and revoke the session
 * (docs/api.md, "Tokens"). Within one gateway process they share the first one's new pair.
 */
const SHARED_REFRESH_MS = 60_000;

export interface InboxSession {
  readonly id: string;
  readonly accessToken: string;
  readonly principal: Principal;
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

/**
 * The inbox's sessions: the browser keeps the session in httpOnly cookies (the gateway has no state
 * of its own and may run as several processes), the access token is verified like every API
 * request's, and it is renewed with refresh-token rotation shortly before it expires.
 */
export class InboxSessions {
  private readonly refreshes = new Map<string, Promise<TokenResponse>>();

  constructor(
    private readonly options: {
      api: InboxApi;
      verifier: TokenVerifier;
      secureCookies: boolean;
      logger: Logger;
    },
  ) {}

  get cookieOptions(): CookieOptions {
    return { httpOnly: true, sameSite: 'strict', secure: this.options.secureCookies, path: '/inbox' };
  }

  /** Starts a session after a successful login: a new session id (never one the browser brought). */
  start(res: Response, pair: TokenResponse): void {
    res.cookie(COOKIES.session, randomBytes(32).toString('base64url'), this.cookieOptions);
    this.store(res, pair);
    res.clearCookie(COOKIES.login, this.cookieOptions);
  }

  /** Ends the session in this browser. */
  end(res: Response): void {
    for (const name of [COOKIES.session, COOKIES.access, COOKIES.refresh]) res.clearCookie(name, this.cookieOptions);
  }

  /** The login form's pre-session id: the one the browser has, or a new one. */
  loginId(req: Request, res: Response): string {
    const existing = cookiesOf(req).get(COOKIES.login);
    if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const id = randomBytes(32).toString('base64url');
    res.cookie(COOKIES.login, id, this.cookieOptions);
    return id;
  }

  /**
   * The request's session, its access token renewed first when it is about to expire; undefined
   * (and the cookies cleared) when there is none or it cannot be renewed.
   */
  async resolve(req: Request, res: Response): Promise<InboxSession | undefined> {
    const cookies = cookiesOf(req);
    const id = cookies.get(COOKIES.session);
    let accessToken = cookies.get(COOKIES.access);
    const refreshToken = cookies.get(COOKIES.refresh);
    if (!id || !accessToken || !refreshToken) return undefined;
    const correlationId = String(req.headers['x-correlation-id']);

    let refreshed = false;
    if ((expiryOf(accessToken) ?? 0) - Date.now() < REFRESH_MARGIN_MS) {
      const pair = await this.refresh(refreshToken, correlationId);
      if (!pair) return this.ended(res);
      this.store(res, pair);
      accessToken = pair.accessToken;
      refreshed = true;
    }
    let principal = await this.verify(accessToken);
    if (!principal && !refreshed) {
      // Refused before its expiry (e.g. signed with a key since retired): one renewal, then give up.
      const pair = await this.refresh(refreshToken, correlationId);
      if (!pair) return this.ended(res);
      this.store(res, pair);
      accessToken = pair.accessToken;
      principal = await this.verify(accessToken);
    }
    if (!principal || principal.role !== 'clinic') return this.ended(res);
    return { id, accessToken, principal };
  }

  /** The principal of a token just issued (the login's), or undefined if it is not a valid one. */
  verify(accessToken: string): Promise<Principal | undefined> {
    return this.options.verifier.verify(accessToken).then(
      (caller) => (caller.kind === 'party' ? caller.principal : undefined),
      (error: unknown) => {
        if (error instanceof InvalidAccessTokenError) return undefined;
        throw error;
      },
    );
  }

  private store(res: Response, pair: TokenResponse): void {
    res.cookie(COOKIES.access, pair.accessToken, this.cookieOptions);
    res.cookie(COOKIES.refresh, pair.refreshToken, this.cookieOptions);
  }

  private ended(res: Response): undefined {
    this.end(res);
    return undefined;
  }

  /** One refresh per refresh token and process; its outcome is shared for a minute (see SHARED_REFRESH_MS). */
  private async refresh(refreshToken: string, correlationId: string): Promise<TokenResponse | undefined> {
    const key = createHash('sha256').update(refreshToken).digest('base64url');
    let pending = this.refreshes.get(key);
    if (!pending) {
      pending = this.options.api.refresh(refreshToken, correlationId);
      this.refreshes.set(key, pending);
      const forget = () => setTimeout(() => this.refreshes.delete(key), SHARED_REFRESH_MS).unref();
      // A refusal is final and shared too; an unavailable auth service is not: the next request tries again.
      pending.then(forget, (error: unknown) => (error instanceof LoginRefusedError ? forget() : this.refreshes.delete(key)));
    }
    try {
      return await pending;
    } catch (error) {
      if (error instanceof LoginRefusedError) {
        this.options.logger.info({ reason: error.reason }, 'inbox session ended: the refresh token was refused');
        return undefined;
      }
      throw error;
    }
  }
}

/** `exp` of a JWT in milliseconds, read without verifying (only to decide when to renew; the token is verified on use). */
export function expiryOf(jwt: string): number | undefined {
  const payload = jwt.split('.')[1];
  if (!payload) return undefined;
  try {
    const exp = (JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown }).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}
