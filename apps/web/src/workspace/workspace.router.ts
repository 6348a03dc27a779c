import type { Request, Router } from 'express';
import { CsrfTokens } from '../session/csrf';
import { inboxAssets } from '../inbox/assets/assets';
import { Formats } from '../inbox/format';
import { sessionsOf, type InboxOptions } from '../inbox/inbox.router';
import type { SessionScope } from '../inbox/session';
import { sessionPagesRouter } from '../inbox/session-pages';
import { changesRoutes } from './changes-routes';
import { documentsRoutes } from './documents-routes';
import { moreClinicsRoutes } from './more-clinics-routes';
import { newRequestRoutes } from './new-request-routes';
import { peopleRoutes } from './people-routes';
import { recordRoutes } from './record-routes';
import { requestsRoutes } from './requests-routes';
import { selectRoutes } from './select-routes';
import { settingsRoutes } from './settings-routes';
import { supplementRoutes } from './supplement-routes';
import { MOUNT, PartyNames, type WorkspaceContext } from './workspace-context';
import { inspectorRoutes, type InspectorOptions } from '../sandbox/inspector-routes';
import { de } from '../inbox/texts.de';
import { workspaceDe } from './workspace.texts.de';

/** The workspace's sessions: referrers' logins only, their cookies on /workspace alone. */
export const WORKSPACE_SCOPE: SessionScope = {
  role: 'referrer',
  path: MOUNT,
  cookies: { session: 'workspace_session', login: 'workspace_login' },
};

/** What the workspace needs: what the inbox does (InboxOptions), the texts aside, and in a sandbox the webhook inspector's receivers. */
export type WorkspaceOptions = Omit<InboxOptions, 'texts'> & { inspector?: InspectorOptions };

/**
 * The hospital's workspace (docs/workspace.md): server-rendered pages at /workspace where the
 * people of a hospital's social service log in and follow their requests to rehabilitation clinics.
 * It reads and writes only through the public API with the person's token, like the inbox and any
 * referrer's software, with the inbox's session, CSRF and error rules (session-pages.ts).
 *
 * - `GET /login`, `POST /login`, `POST /logout`.
 * - `GET /requests`: the hospital's requests, each with every clinic's state of it.
 * - `GET /requests/new`, `POST /requests/new`: a new request as a form, sent through the public API.
 * - `GET /requests/{taskId}`: one request, addressed by the id of its first Task; `GET|POST
 *   /requests/{taskId}/erase`: its patient data erased after a confirmation.
 * - `GET|POST /requests/{taskId}/select/{clinicTaskId}`: selecting a clinic that accepted, with the complete master data.
 * - `GET|POST /requests/{taskId}/withdraw|revoke`: the selection withdrawn, the request revoked, each after a confirmation.
 * - `GET|POST /requests/{taskId}/supplement`: the request's next version, its fields edited.
 * - `GET|POST /requests/{taskId}/more-clinics`: the request's next version, with further clinics asked.
 * - `GET|POST /requests/{taskId}/documents`: documents (PDF, PNG, JPEG) sent for the request as one DocumentBundle.
 * - `GET /requests/{taskId}/record.pdf|csv`: the signed record for the payer; `POST
 *   /requests/{taskId}/ready-for-transfer`: when the patient was ready for transfer.
 * - `GET /people`, `POST /people`, `POST /people/{userId}/disable`: the party's people, for its administrators.
 * - `GET|POST /settings`: the hospital's default answer deadline.
 * - `GET|POST /sandbox/webhooks…`: the webhook inspector, in a sandbox only (sandbox/inspector-routes.ts).
 */
export function workspaceRouter(options: WorkspaceOptions): Router {
  const texts = workspaceDe;
  // The inbox's stylesheet and script, served by the inbox's router at /inbox/assets.
  const assets = inboxAssets('/inbox', de).urls;
  const csrf = new CsrfTokens(options.csrfSecret);
  const sessions = sessionsOf(options, WORKSPACE_SCOPE);
  const context: WorkspaceContext = {
    api: options.api,
    csrf,
    texts,
    formats: new Formats(texts),
    assets,
    logger: options.logger,
    parties: new PartyNames(options.api),
    profileBase: options.profileBase,
    sandbox: options.sandbox === true,
  };
  return sessionPagesRouter({
    api: options.api,
    sessions,
    csrf,
    texts,
    bare: { texts, assets, mount: MOUNT, home: `${MOUNT}/requests`, sandbox: context.sandbox },
    mount: MOUNT,
    home: '/requests',
    wrongRole: texts.hospital.wrongRole,
    // The pages' script asks for changes every few seconds (requests-routes.ts): JSON, not the person's use.
    // So does the webhook inspector's list (sandbox/inspector-routes.ts).
    isPoll: (req: Request) => /^\/requests\/(?:[^/]+\/)?updates$/.test(req.path) || req.path === '/sandbox/webhooks/updates',
    // Documents come as multipart/form-data: their route checks the token of the form (documents-routes.ts).
    checksOwnToken: (req: Request) => req.method === 'POST' && /^\/requests\/[^/]+\/documents$/.test(req.path),
    logger: options.logger,
    routes: (pages) => {
      // Before the request's page: /requests/new is no request.
      pages.use(newRequestRoutes(context));
      pages.use(requestsRoutes(context));
      pages.use(recordRoutes(context));
      pages.use(selectRoutes(context));
      pages.use(changesRoutes(context));
      pages.use(supplementRoutes(context));
      pages.use(moreClinicsRoutes(context));
      pages.use(documentsRoutes(context));
      pages.use(peopleRoutes(context));
      pages.use(settingsRoutes(context));
      // Only in a sandbox (SANDBOX): elsewhere its pages are not found like any other unknown page.
      if (options.inspector) pages.use(inspectorRoutes(context, options.inspector));
    },
  });
}
