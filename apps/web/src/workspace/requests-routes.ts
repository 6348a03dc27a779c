import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { ClinicRecord } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import type { Html } from '../inbox/html';
import { apiCallOf, sendPage } from '../inbox/inbox-context';
import { newRequestTexts } from './new-request.texts.de';
import { erasePage } from './pages/erase.page';
import { requestPage, requestParts } from './pages/request.page';
import { requestsPage, requestsParts } from './pages/requests.page';
import { PLACEMENT_STATES, placementsOf, requestOf } from './placements';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

/** The Tasks the list reads at most: with up to five clinics a request, the last hundred or so requests. */
export const LIST_READ = 500;
/** The list shows the requests changed within this many days. */
export const LIST_DAYS = 90;

const TaskId = z.guid();
/** The list's filter (`?filter=`); anything else shows them all. */
const Filter = z
  .enum(PLACEMENT_STATES)
  .catch('all' as never)
  .or(z.literal('all'));

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
  /** The request of a Task of the party, all its clinics' Tasks; not found for another party's. */
  const placementOf = async (req: Request, res: Response) => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw notFound();
    const api = hospitalApiOf(context, req, res);
    const task = await api.task(taskId);
    if (!task) throw notFound();
    const [{ tasks }, clinics] = await Promise.all([
      api.tasks(new URLSearchParams({ 'based-on': requestOf(task), _count: String(LIST_READ) })),
      clinicsOf(context, req, res),
    ]);
    const [placement] = placementsOf(tasks);
    if (!placement) throw notFound();
    return { placement, clinics };
  };
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
    const flash = req.query.erased === '1' ? texts.hospital.erase.done : undefined;
    sendPage(res, requestPage(page, texts, placement, clinics, formats, flash));
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

async function clinicsOf(
  context: WorkspaceContext,
  req: Parameters<typeof apiCallOf>[0],
  res: Parameters<typeof apiCallOf>[1],
): Promise<ReadonlyMap<string, ClinicRecord>> {
  const { items } = await context.api.clinics(apiCallOf(req, res));
  return new Map(items.map((clinic) => [clinic.ik, clinic]));
}
