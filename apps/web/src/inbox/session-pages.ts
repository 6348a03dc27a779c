import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { classifyError, HttpError, logServerError, sendError } from '@bedrequest/http';
import { clientAddressOf } from '@bedrequest/observability';
import { isSameOrigin, type CsrfTokens } from '../session/csrf';
import { LoginRefusedError, SessionExpiredError, type ApiCaller, type InboxApi } from './inbox-api';
import { sendPage } from './inbox-context';
import { errorPage } from './pages/error.page';
import type { PageContext } from './pages/layout';
import { loginPage } from './pages/login.page';
import { cookiesOf, type InboxSessions } from './session';
import type { Texts } from './texts.de';

/**
 * Every page shows or may show patient data: nothing is cached or stored (`no-store`), nothing runs
 * but this origin's one script and stylesheet, no page may be framed, forms post only here.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export interface SessionPagesOptions {
  api: InboxApi;
  sessions: InboxSessions;
  csrf: CsrfTokens;
  texts: Texts;
  /** The pages before a session (login, errors): texts, assets, mount. */
  bare: PageContext;
  /** Where the router is mounted ("/inbox"), and the page a session starts on, below it ("/tasks"). */
  mount: string;
  home: string;
  /** The login of another role's person: what the login form says (the inbox: "not a clinic's"). */
  wrongRole: string;
  /** Requests the page's own script makes by itself (the live list): JSON, and no person's use of the session. */
  isPoll: (req: Request) => boolean;
  logger: Logger;
  /** The pages behind the session. */
  routes: (router: Router) => void;
  /**
   * Posts whose route reads the body itself and checks the CSRF token in it before acting (a
   * multipart form, which this router does not parse): the guard checks only their origin.
   */
  checksOwnToken?: (req: Request) => boolean;
}

/**
 * The frame of a set of signed-in pages (the clinic inbox, docs/inbox.md; the hospital's workspace,
 * docs/workspace.md): `GET /login`, `POST /login`, `POST /logout` (the session, cookies only: session.ts),
 * a guard before the pages (a page without a session redirects to the login, its JSON answers 401;
 * every POST must come from this origin and carry the session's CSRF token: csrf.ts), and the error
 * pages. The pages read and write only through the public API, with the person's token.
 */
export function sessionPagesRouter(options: SessionPagesOptions): Router {
  const { texts, csrf, sessions, mount, bare, api } = options;
  const router = Router();
  router.use((_req, res, next) => {
    // `same-origin`, not helmet's `no-referrer`: with no-referrer a browser sends `Origin: null` on
    // form posts, and the origin check needs the real one; other sites still get no referrer.
    res.set({ 'content-security-policy': CONTENT_SECURITY_POLICY, 'cache-control': 'no-store', 'referrer-policy': 'same-origin' });
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 2_000 }));
  const wantsJson = (req: Request) => options.isPoll(req) || (req.headers.accept ?? '').startsWith('application/json');

  router.get('/', (_req, res) => res.redirect(303, `${mount}${options.home}`));

  router.get('/login', async (req, res) => {
    if (await sessions.resolve(req, res)) return res.redirect(303, `${mount}${options.home}`);
    const info = req.query.expired === '1' ? texts.login.sessionExpired : req.query.loggedOut === '1' ? texts.login.loggedOut : undefined;
    sendPage(res, loginPage(bare, { csrfToken: csrf.tokenOf(sessions.loginId(req, res), 'login'), ...(info ? { info } : {}) }));
  });

  router.post('/login', async (req, res) => {
    const loginId = cookiesOf(req).get(sessions.scope.cookies.login);
    if (!isSameOrigin(req) || !loginId || !csrf.verify(req, loginId, 'login')) return refuse(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const username = typeof body.username === 'string' ? body.username.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const again = (error: string, status: number) => sendPage(res, loginPage(bare, { csrfToken: csrf.tokenOf(loginId, 'login'), username, error }), status);
    if (!username || !password) return again(texts.login.missing, 400);
    try {
      const caller = callerOf(req);
      const pair = await api.login({ username, password }, caller);
      if (!(await sessions.start(res, pair))) {
        // Another role's login: the pair it got is of no use here and is ended at once.
        await api.revoke(pair.refreshToken, caller).catch(() => undefined);
        return again(options.wrongRole, 403);
      }
      res.redirect(303, `${mount}${options.home}`);
    } catch (error) {
      if (!(error instanceof LoginRefusedError)) throw error;
      if (error.reason === 'too_many_requests') {
        res.setHeader('Retry-After', String(error.retryAfterSeconds ?? 60));
        return again(texts.login.throttled(error.retryAfterSeconds ?? 60), 429);
      }
      return again(error.reason === 'invalid_request' ? texts.login.missing : texts.login.failed, 401);
    }
  });

  // Everything below needs a session; a state-changing request also the CSRF checks.
  const guard: RequestHandler = async (req, res, next) => {
    const session = await sessions.resolve(req, res, { used: !options.isPoll(req) });
    if (!session) {
      if (wantsJson(req)) return sendError(res, new HttpError('unauthorized', `no session: log in at ${mount}/login`));
      return res.redirect(303, `${mount}/login${req.method === 'GET' && cookiesOf(req).has(sessions.scope.cookies.session) ? '?expired=1' : ''}`);
    }
    res.locals.inboxSession = session;
    const tokenChecked = options.checksOwnToken?.(req) || csrf.verify(req, session.id);
    if (req.method !== 'GET' && req.method !== 'HEAD' && (!isSameOrigin(req) || !tokenChecked)) return refuse(res);
    next();
  };
  router.use(guard);

  router.post('/logout', async (req, res) => {
    // The session leaves the store and its refresh token's whole family is revoked, so no token of
    // it renews again. The access token lives on until it expires (at most an hour): only a disable
    // revokes access tokens (docs/parties.md, "Disabling"), but it never reached the browser.
    const refreshToken = await sessions.end(req, res);
    if (refreshToken) {
      // The browser's session ends all the same: the person asked to leave.
      await api.revoke(refreshToken, callerOf(req)).catch((error: unknown) => {
        options.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'logout: the refresh token could not be revoked');
      });
    }
    res.redirect(303, `${mount}/login?loggedOut=1`);
  });

  options.routes(router);

  router.use((req, res) => {
    if (wantsJson(req)) return sendError(res, new HttpError('not_found', 'no such page'));
    sendPage(res, errorPage(bare, texts.errors.notFound), 404);
  });

  const errors: ErrorRequestHandler = async (error: unknown, req, res, next) => {
    if (res.headersSent) return next(error);
    if (error instanceof SessionExpiredError) {
      // The API refused the session's token: the session is over (the person logs in again).
      await sessions.end(req, res).catch(() => undefined);
      if (wantsJson(req)) return sendError(res, new HttpError('unauthorized', 'the session has ended'));
      return res.redirect(303, `${mount}/login?expired=1`);
    }
    const failure = classifyError(error);
    logServerError(options.logger, req, failure);
    if (failure.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(failure.retryAfterSeconds));
    if (wantsJson(req)) return sendError(res, failure);
    const message =
      failure.status === 404
        ? texts.errors.notFound
        : failure.status === 429
          ? texts.errors.throttled
          : failure.status === 503
            ? texts.errors.unavailable
            : failure.status < 500
              ? texts.errors.badRequest
              : texts.errors.internal;
    sendPage(res, errorPage(bare, message), failure.status);
  };
  router.use(errors);

  function refuse(res: Response): void {
    sendPage(res, errorPage(bare, texts.errors.forbidden), 403);
  }

  return router;
}

/** Who asks the token endpoints: the browser, by its address (docs/inbox.md, "For operators"). */
function callerOf(req: Request): ApiCaller {
  return { correlationId: String(req.headers['x-correlation-id']), clientAddress: clientAddressOf(req) };
}
