import { Router } from 'express';
import { z } from 'zod';
import type { ClinicRecord } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { apiCallOf, sendPage } from '../inbox/inbox-context';
import { requestPage } from './pages/request.page';
import { requestsPage } from './pages/requests.page';
import { placementsOf, requestOf } from './placements';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

/** The Tasks the list reads at most: with up to five clinics a request, the last hundred or so requests. */
export const LIST_READ = 500;
/** The list shows the requests changed within this many days. */
export const LIST_DAYS = 90;

const TaskId = z.guid();

/**
 * The hospital's requests and each one's page (docs/workspace.md), read with the person's token
 * through the public Task search and read, as any referrer's software reads them: a Task id of
 * another party is not found (404), whatever the URL.
 */
export function requestsRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const { texts, formats } = context;
  const notFound = () => new HttpError('not_found', texts.errors.notFound);

  router.get('/requests', async (req, res) => {
    const since = new Date(Date.now() - LIST_DAYS * 86_400_000).toISOString().slice(0, 10);
    const query = new URLSearchParams({ _lastUpdated: `ge${since}`, _count: String(LIST_READ) });
    const [{ tasks, more }, clinics, page] = await Promise.all([
      hospitalApiOf(context, req, res).tasks(query),
      clinicsOf(context, req, res),
      workspacePageOf(context, req, res),
    ]);
    sendPage(res, requestsPage(page, texts, { placements: placementsOf(tasks), clinics, truncated: more, formats }));
  });

  router.get('/requests/:taskId', async (req, res) => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw notFound();
    const api = hospitalApiOf(context, req, res);
    const task = await api.task(taskId);
    if (!task) throw notFound();
    const [{ tasks }, clinics, page] = await Promise.all([
      api.tasks(new URLSearchParams({ 'based-on': requestOf(task), _count: String(LIST_READ) })),
      clinicsOf(context, req, res),
      workspacePageOf(context, req, res),
    ]);
    const [placement] = placementsOf(tasks);
    if (!placement) throw notFound();
    sendPage(res, requestPage(page, texts, placement, clinics, formats));
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
