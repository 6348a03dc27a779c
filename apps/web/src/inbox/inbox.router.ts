import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { Logger } from 'pino';
import { classifyError, HttpError, logServerError, sendError } from '@bedrequest/http';
import { clientAddressOf } from '@bedrequest/observability';
import { CsrfTokens, isSameOrigin } from '../session/csrf';
import type { SessionStore } from '../session/session-store';
import { sessionAnswerDrafts } from './answer-drafts';
import { inboxAssets } from './assets/assets';
import { AutomaticAnswersSetting } from './automatic-answers-setting';
import { bedsRoutes } from './beds-routes';
import { Formats } from './format';
import { LoginRefusedError, SessionExpiredError, type ApiCaller, type InboxApi } from './inbox-api';
import { ClinicRecords, sendPage, type InboxContext } from './inbox-context';
import { listRoutes } from './list-routes';
import { errorPage } from './pages/error.page';
import { loginPage } from './pages/login.page';
import { answerSentNotice } from './answer-steps';
import { COOKIES, cookiesOf, InboxSessions } from './session';
import { taskRoutes } from './task-routes';
import { workspaceRoutes } from './workspace-routes';
import { de, type Texts } from './texts.de';

export interface InboxOptions {
  /** The gateway's public API, asked with the person's token (see InboxApi). */
  api: InboxApi;
  /** Where the sessions live (Redis, shared by every web process). */
  sessions: SessionStore;
  /** WEB_SESSION_REFRESH_MARGIN_SECONDS, in milliseconds. */
  refreshMarginMs: number;
  logger: Logger;
  /** `NODE_ENV`: cookies are `Secure` in production. */
  nodeEnv: string;
  /** The key of the CSRF tokens, the same in every web process (csrfSecretOf). */
  csrfSecret: string;
  /** `PROFILE_BASE`: the code systems the bundles are read with. */
  profileBase: string;
  texts?: Texts;
}

/** Where the router is mounted: its links, form actions and cookie path. */
const MOUNT = '/inbox';

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

/**
 * The clinic inbox (docs/inbox.md): server-rendered pages at /inbox where clinic staff log in, see
 * their requests arrive, read each one, answer it, and publish their bed counts. It reads and
 * writes only through the public API (InboxApi), with the person's token.
 *
 * - `GET /login`, `POST /login`, `POST /logout`: the session (session.ts), cookies only.
 * - `GET /tasks` (the list), `GET /tasks/updates` (JSON for the live list), `GET /tasks/{id}`,
 *   `GET /tasks/{id}/print`, `POST /tasks/{id}/answer` (the form, then `GET /tasks/{id}/confirm`, whose
 *   post sends it and redirects to the list), `GET /tasks/next` (the next open request),
 *   `GET /tasks/{id}/documents/{n}/attachments/{k}` (the k-th attachment of the request's n-th
 *   document, read with that document alone).
 * - `GET /beds`, `POST /beds`: the bed counts.
 * - `GET /assets/inbox-<hash>.js|css`.
 *
 * Every POST must come from this origin and carry the session's CSRF token (csrf.ts); a page without
 * a session redirects to the login, its JSON answers 401.
 */
export function inboxRouter(options: InboxOptions): Router {
  const texts = options.texts ?? de;
  const csrf = new CsrfTokens(options.csrfSecret);
  const sessions = new InboxSessions({
    api: options.api,
    store: options.sessions,
    secureCookies: options.nodeEnv === 'production',
    refreshMarginMs: options.refreshMarginMs,
    logger: options.logger,
  });
  const assets = inboxAssets(MOUNT, texts);
  const context: InboxContext = {
    api: options.api,
    csrf,
    texts,
    formats: new Formats(texts),
    assets: assets.urls,
    profileBase: options.profileBase,
    logger: options.logger,
    clinics: new ClinicRecords(options.api),
    automaticAnswers: new AutomaticAnswersSetting(options.api),
  };
  const bare = { texts, assets: context.assets };

  const router = Router();
  router.use(assets.router);
  router.use((_req, res, next) => {
    // `same-origin`, not helmet's `no-referrer`: with no-referrer a browser sends `Origin: null` on
    // form posts, and the origin check needs the real one; other sites still get no referrer.
    res.set({ 'content-security-policy': CONTENT_SECURITY_POLICY, 'cache-control': 'no-store', 'referrer-policy': 'same-origin' });
    next();
  });
  router.use(express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 2_000 }));

  router.get('/', (_req, res) => res.redirect(303, `${MOUNT}/tasks`));

  router.get('/login', async (req, res) => {
    if (await sessions.resolve(req, res)) return res.redirect(303, `${MOUNT}/tasks`);
    const info = req.query.expired === '1' ? texts.login.sessionExpired : req.query.loggedOut === '1' ? texts.login.loggedOut : undefined;
    sendPage(res, loginPage(bare, { csrfToken: csrf.tokenOf(sessions.loginId(req, res), 'login'), ...(info ? { info } : {}) }));
  });

  router.post('/login', async (req, res) => {
    const loginId = cookiesOf(req).get(COOKIES.login);
    if (!isSameOrigin(req) || !loginId || !csrf.verify(req, loginId, 'login')) return refuse(res);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const username = typeof body.username === 'string' ? body.username.trim() : '';
    const password = typeof body.password === 'string' ? body.password : '';
    const again = (error: string, status: number) => sendPage(res, loginPage(bare, { csrfToken: csrf.tokenOf(loginId, 'login'), username, error }), status);
    if (!username || !password) return again(texts.login.missing, 400);
    try {
      const caller = callerOf(req);
      const pair = await options.api.login({ username, password }, caller);
      if (!(await sessions.start(res, pair))) {
        // Not a clinic's login: the pair it got is of no use here and is ended at once.
        await options.api.revoke(pair.refreshToken, caller).catch(() => undefined);
        return again(texts.login.notAClinic, 403);
      }
      res.redirect(303, `${MOUNT}/tasks`);
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
    const session = await sessions.resolve(req, res, { used: !isPoll(req) });
    if (!session) {
      if (wantsJson(req)) return sendError(res, new HttpError('unauthorized', 'no session: log in at /inbox/login'));
      return res.redirect(303, `${MOUNT}/login${req.method === 'GET' && cookiesOf(req).has(COOKIES.session) ? '?expired=1' : ''}`);
    }
    res.locals.inboxSession = session;
    if (req.method !== 'GET' && req.method !== 'HEAD' && (!isSameOrigin(req) || !csrf.verify(req, session.id))) return refuse(res);
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
      await options.api.revoke(refreshToken, callerOf(req)).catch((error: unknown) => {
        options.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'inbox logout: the refresh token could not be revoked');
      });
    }
    res.redirect(303, `${MOUNT}/login?loggedOut=1`);
  });

  // Before the request's routes: /tasks/updates is the list's, not a request's. The list says once
  // that an answer was sent (post/redirect/get: docs/inbox.md, "Antworten").
  const drafts = sessionAnswerDrafts(options.sessions);
  router.use(answerSentNotice(context, drafts));
  router.use(listRoutes(context));
  router.use(taskRoutes(context, drafts));
  router.use(bedsRoutes(context));
  // Taking a request, internal notes (docs/inbox.md, "Gemeinsam bearbeiten").
  router.use(workspaceRoutes(context));

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
      return res.redirect(303, `${MOUNT}/login?expired=1`);
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

/** The live list's polling, which the page's script makes every few seconds by itself. */
function isPoll(req: Request): boolean {
  return req.path === '/tasks/updates';
}

/** The live list's polling asks for JSON; everything else is a page. */
function wantsJson(req: Request): boolean {
  return isPoll(req) || (req.headers.accept ?? '').startsWith('application/json');
}

/** Who asks the token endpoints: the browser, by its address (docs/inbox.md, "For operators"). */
function callerOf(req: Request): ApiCaller {
  return { correlationId: String(req.headers['x-correlation-id']), clientAddress: clientAddressOf(req) };
}
