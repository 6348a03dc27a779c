import { Router, type Request } from 'express';
import type { Logger } from 'pino';
import { CsrfTokens } from '../session/csrf';
import type { SessionStore } from '../session/session-store';
import { sessionAnswerDrafts } from './answer-drafts';
import { inboxAssets } from './assets/assets';
import { AutomaticAnswersSetting } from './automatic-answers-setting';
import { answerStatisticsRoutes } from './answer-statistics-routes';
import { bedsRoutes } from './beds-routes';
import { notificationsRoutes } from './notifications-routes';
import { Formats } from './format';
import type { InboxApi } from './inbox-api';
import { ClinicRecords, type InboxContext } from './inbox-context';
import { listRoutes } from './list-routes';
import { answerSentNotice } from './answer-steps';
import { InboxSessions, type SessionScope } from './session';
import { sessionPagesRouter } from './session-pages';
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
  /** `SANDBOX`: every page shows the sandbox's banner. */
  sandbox?: boolean;
  texts?: Texts;
}

/** Where the router is mounted: its links, form actions and cookie path. */
const MOUNT = '/inbox';

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
  const sessions = sessionsOf(options);
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
    sandbox: options.sandbox === true,
  };
  const bare = { texts, assets: context.assets, sandbox: context.sandbox };

  const router = Router();
  router.use(assets.router);
  router.use(
    sessionPagesRouter({
      api: options.api,
      sessions,
      csrf,
      texts,
      bare,
      mount: MOUNT,
      home: '/tasks',
      wrongRole: texts.login.notAClinic,
      isPoll,
      logger: options.logger,
      routes: (pages) => {
        // Before the request's routes: /tasks/updates is the list's, not a request's. The list says once
        // that an answer was sent (post/redirect/get: docs/inbox.md, "Antworten").
        const drafts = sessionAnswerDrafts(options.sessions);
        pages.use(answerSentNotice(context, drafts));
        pages.use(listRoutes(context));
        pages.use(taskRoutes(context, drafts));
        pages.use(bedsRoutes(context));
        // The clinic's answer times beside its peers' (docs/inbox.md, "Statistik").
        pages.use(answerStatisticsRoutes(context));
        // The person's own e-mail about new requests and deadlines (docs/inbox.md, "Benachrichtigungen").
        pages.use(notificationsRoutes(context));
        // Taking a request, internal notes (docs/inbox.md, "Gemeinsam bearbeiten").
        pages.use(workspaceRoutes(context));
      },
    }),
  );
  return router;
}

/** The sessions of a set of pages (the inbox's scope unless one is given), in the store and with the settings the options name. */
export function sessionsOf(options: Omit<InboxOptions, 'texts'>, scope?: SessionScope): InboxSessions {
  return new InboxSessions({
    api: options.api,
    store: options.sessions,
    secureCookies: options.nodeEnv === 'production',
    refreshMarginMs: options.refreshMarginMs,
    logger: options.logger,
    ...(scope ? { scope } : {}),
  });
}

/** The live list's polling, which the page's script makes every few seconds by itself. */
function isPoll(req: Request): boolean {
  return req.path === '/tasks/updates';
}
