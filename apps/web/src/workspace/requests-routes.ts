import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { HttpError } from '@bedrequest/http';
import type { Html } from '../inbox/html';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { newRequestTexts } from './new-request.texts.de';
import { changesTexts } from './changes.texts.de';
import { selectTexts } from './select.texts.de';
import { workspaceDe } from './workspace.texts.de';
import { erasePage } from './pages/erase.page';
import { historySection } from './pages/request-history';
import { requestPage, requestParts } from './pages/request.page';
import { requestsPage, requestsParts } from './pages/requests.page';
import { clinicsOf, LIST_READ, placementOfTask } from './placement-reads';
import { PLACEMENT_STATES, placementsOf, requestOf } from './placements';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

/** The list shows the requests changed within this many days. */
export const LIST_DAYS = 90;

/** What a step done on a request says once on its page (post/redirect/get: `?erased=1` etc.). */
const FLASHES: readonly [string, string][] = [
  ['erased', workspaceDe.hospital.erase.done],
  ['selected', selectTexts.done],
  ['revoked', changesTexts.revoke.done],
  ['withdrawn', changesTexts.withdraw.done],
  ['supplemented', newRequestTexts.supplement.done],
];

/** The list's filter (`?filter=`); anything else shows them all. */
const Filter = z.enum(['all', ...PLACEMENT_STATES]).catch('all');

/**
 * The hospital's requests and each one's page (docs/workspace.md), read with the person's token
 * through the public Task search and read, as any referrer's software reads them: a Task id of
 * another party is not found (404), whatever the URL.
 */
export function requestsRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const { texts, formats } = context;
  const notFound = () => new HttpError('not_found', texts.errors.notFound);

  const listView = async (req: Request, res: Response) => {
    const since = new Date(Date.now() - LIST_DAYS * 86_400_000).toISOString().slice(0, 10);
    const query = new URLSearchParams({ _lastUpdated: `ge${since}`, _count: String(LIST_READ) });
    const [{ tasks, more }, clinics] = await Promise.all([hospitalApiOf(context, req, res).tasks(query), clinicsOf(context, req, res)]);
    const filter = Filter.parse(req.query.filter);
    return { placements: placementsOf(tasks), filter, clinics, truncated: more, formats };
  };
  const placementOf = (req: Request, res: Response) => placementOfTask(context, req, res);
  /** What the page's script asks every few seconds: the changed parts, once the latest change is past `since`. */
  const updates = (res: Response, since: unknown, changedAt: string, parts: () => Record<string, Html>) => {
    res.json(since === changedAt ? { changedAt } : { changedAt, parts: Object.fromEntries(Object.entries(parts()).map(([id, part]) => [id, part.markup])) });
  };

  router.get('/requests', async (req, res) => {
    const [view, page] = await Promise.all([listView(req, res), workspacePageOf(context, req, res)]);
    sendPage(res, requestsPage(page, texts, view, req.query.sent === '1' ? newRequestTexts.sent : undefined));
  });

  router.get('/requests/updates', async (req, res) => {
    const view = await listView(req, res);
    updates(res, req.query.since, view.placements[0]?.changedAt ?? '', () => requestsParts(texts, view));
  });

  router.get('/requests/:taskId', async (req, res) => {
    const [{ placement, clinics }, page] = await Promise.all([placementOf(req, res), workspacePageOf(context, req, res)]);
    const [task] = placement.tasks;
    // Who of the hospital sent or changed it, which clinic answered (the audit trail); the page shows without it should it fail.
    const changes = task
      ? await hospitalApiOf(context, req, res)
          .changes(requestOf(task))
          .catch(() => undefined)
      : undefined;
    const history = changes && historySection(changes, sessionOf(res).principal.ikNumbers, clinics, texts, formats);
    const flash = FLASHES.find(([name]) => req.query[name] === '1')?.[1];
    sendPage(res, requestPage(page, texts, placement, clinics, formats, flash, history));
  });

  // Erasing the request's patient data (docs/workspace.md, "Patientendaten löschen"): a confirmation first.
  router.get('/requests/:taskId/erase', async (req, res) => {
    const [{ placement }, page] = await Promise.all([placementOf(req, res), workspacePageOf(context, req, res)]);
    sendPage(res, erasePage(page, texts, placement.id, page.signedIn?.csrfToken ?? ''));
  });

  router.post('/requests/:taskId/erase', async (req, res) => {
    const { placement } = await placementOf(req, res);
    const [task] = placement.tasks;
    if (!task || !(await hospitalApiOf(context, req, res).erase(requestOf(task)))) throw notFound();
    res.redirect(303, `/workspace/requests/${placement.id}?erased=1`);
  });

  router.get('/requests/:taskId/updates', async (req, res) => {
    const { placement, clinics } = await placementOf(req, res);
    updates(res, req.query.since, placement.changedAt, () => requestParts(texts, placement, clinics, formats));
  });

  return router;
}
