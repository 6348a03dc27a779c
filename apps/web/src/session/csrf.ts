import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Redis } from 'ioredis';

/**
 * CSRF protection of the pages' state-changing requests (OWASP CSRF Prevention Cheat Sheet), in
 * three layers:
 * 1. the session cookies are `SameSite=Strict`: another site's form or script sends none of them;
 * 2. `Sec-Fetch-Site` (when the browser sends it) must be `same-origin` and `Origin` (when sent) must
 *    be this host: a cross-site request is refused before anything else;
 * 3. a synchronizer token bound to the session: an HMAC of the session id (a random value kept in an
 *    httpOnly cookie) with a server key, in a hidden form field or the `x-csrf-token` header.
 *    Nothing is stored on the server, the token stays valid for the whole session (across access
 *    token refreshes), and it cannot be made without the key.
 *
 * Hand-written rather than `csrf-csrf`: that library implements the same signed double-submit
 * scheme but needs cookie-parser and a second cookie; here the token is one HMAC of a value the
 * session already has.
 */
export class CsrfTokens {
  constructor(private readonly key: string) {}

  /** The token of a session (or of a login form's pre-session id). */
  tokenOf(sessionId: string, purpose: 'session' | 'login' = 'session'): string {
    return createHmac('sha256', this.key).update(`inbox-csrf:${purpose}:${sessionId}`).digest('base64url');
  }

  /** Whether the request carries the token of `sessionId`. */
  verify(req: Request, sessionId: string, purpose: 'session' | 'login' = 'session'): boolean {
    return this.matches(tokenSent(req), sessionId, purpose);
  }

  /** Whether `sent` is the token of `sessionId`: for a body the page's route reads itself (a multipart form). */
  matches(sent: string | undefined, sessionId: string, purpose: 'session' | 'login' = 'session'): boolean {
    if (!sent) return false;
    const expected = Buffer.from(this.tokenOf(sessionId, purpose));
    const actual = Buffer.from(sent);
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }
}

function tokenSent(req: Request): string | undefined {
  const header = req.headers['x-csrf-token'];
  if (typeof header === 'string' && header) return header;
  const field = (req.body as Record<string, unknown> | undefined)?._csrf;
  return typeof field === 'string' && field ? field : undefined;
}

/**
 * Whether the browser says the request comes from this site: `Sec-Fetch-Site: same-origin` where
 * sent (every current browser sends it), and an `Origin` naming this host where sent. A request with
 * neither (an old browser, a script) is left to the token.
 */
export function isSameOrigin(req: Request): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return false;
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}

/**
 * The key of the CSRF tokens: `WEB_CSRF_SECRET` where it is set (production requires it). Elsewhere
 * the first web process makes a random one and keeps it in Redis (`SET NX`), and every other process
 * takes that one: a form served by one process is accepted by another. Never a key written in the
 * repository.
 */
export async function csrfSecretOf(config: { WEB_CSRF_SECRET?: string | undefined }, redis: Redis): Promise<string> {
  if (config.WEB_CSRF_SECRET) return config.WEB_CSRF_SECRET;
  await redis.set(DEVELOPMENT_SECRET_KEY, randomBytes(32).toString('hex'), 'NX');
  const shared = await redis.get(DEVELOPMENT_SECRET_KEY);
  if (!shared) throw new Error('the development CSRF key could not be kept in Redis');
  return shared;
}

const DEVELOPMENT_SECRET_KEY = 'web:development-csrf-secret';
