import { Router } from 'express';
import { z } from 'zod';
import type { ClinicTaskList } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { apiCallOf, pageContextOf, sendPage, sessionOf, type InboxContext } from './inbox-context';
import { ListAddresses, listQuery, positionAfter } from './list-position';
import { errorPage } from './pages/error.page';
import { isInFilter, LIST_FILTERS, taskListPage, taskRow, type ListFilter } from './pages/task-list.page';

/**
 * Rows per page of the list: days of an admission desk's work, and the page stays fast however many
 * requests a clinic has (1,000 rows on one page took 0.4–0.6 s in Chromium on an idle machine,
 * but 1–3 s on one as busy as the test suite's; 250 take a quarter of that). Older requests are on
 * the next pages; the tab counts are always complete.
 */
export const LIST_PAGE_SIZE = 250;
/**
 * How far back each poll asks again: a Task's lastModified is taken when intake decides, a moment
 * before its transaction commits, so a Task committed just after one poll may carry a time before
 * that poll's cursor. Rows sent twice replace themselves.
 */
const POLL_OVERLAP_MS = 10_000;
/** The most changed rows one poll brings (the API's largest page). */
const MAX_CHANGES = 1000;

const Filter = z.enum(LIST_FILTERS as [ListFilter, ...ListFilter[]]).catch('all');
const Page = z.coerce.number().int().min(1).max(1_000_000).catch(1);

/** The list of requests, a page at a time (list-position.ts), and its live updates. */
export function listRoutes(context: InboxContext): Router {
  const router = Router();
  const { texts, formats } = context;

  router.get('/tasks', async (req, res) => {
    const filter = Filter.parse(req.query.filter);
    const addresses = new ListAddresses(sessionOf(res).id);
    const position = addresses.read({ page: Page.parse(req.query.page), cursor: req.query.cursor });
    const list = position && (await context.api.tasks(listQuery(filter, LIST_PAGE_SIZE, position), apiCallOf(req, res)));
    if (!position || !list) {
      // An address the list did not offer: a page past the API's bound by number, a position of another session.
      const back = { href: addresses.href(filter), label: texts.list.first };
      return sendPage(res, errorPage(await pageContextOf(context, req, res), texts.list.unavailable, back), 400);
    }
    const now = Date.now();
    const next = positionAfter(position, list.next);
    const pages = Math.max(1, Math.ceil(list.total / LIST_PAGE_SIZE));
    sendPage(
      res,
      taskListPage(await pageContextOf(context, req, res), {
        list,
        filter,
        formats,
        cursor: cursorOf(list, now),
        now,
        live: position.page === 1 && position.after === undefined,
        pager: {
          page: position.page,
          pages,
          self: addresses.href(filter, position),
          tabs: Object.fromEntries(LIST_FILTERS.map((candidate) => [candidate, addresses.href(candidate)])) as Record<ListFilter, string>,
          // Past the numbered pages the API pages forward only: back is to the start (and the browser's Back).
          ...(position.after !== undefined
            ? { start: addresses.href(filter) }
            : position.page > 1
              ? { previous: addresses.href(filter, { page: Math.min(position.page - 1, pages) }) }
              : {}),
          ...(next ? { next: addresses.href(filter, next) } : {}),
        },
      }),
    );
  });

  router.get('/tasks/updates', async (req, res) => {
    const filter = Filter.parse(req.query.filter);
    const since = z.iso.datetime({ offset: true }).safeParse(req.query.since);
    if (!since.success) throw new HttpError('invalid_request', 'since: an instant');
    const query = new URLSearchParams({ since: new Date(Date.parse(since.data) - POLL_OVERLAP_MS).toISOString(), _count: String(MAX_CHANGES) });
    const list = await context.api.tasks(query, apiCallOf(req, res));
    if (!list) throw new HttpError('invalid_request', 'the list refused the poll');
    const now = Date.now();
    res.json({
      cursor: cursorOf(list, Date.parse(since.data)),
      counts: { all: Object.values(list.counts).reduce((sum, count) => sum + count, 0), ...list.counts },
      rows: list.items.map((task) => ({
        id: task.id,
        version: task.version,
        status: task.status,
        inFilter: isInFilter(task.status, filter),
        html: taskRow(task, texts, formats, now).markup,
      })),
    });
  });

  return router;
}

/** Where the next poll starts: the newest change listed, else `fallback` (a minute back when nothing is listed yet). */
function cursorOf(list: ClinicTaskList, fallback: number): string {
  const newest = list.items.reduce((latest, task) => Math.max(latest, Date.parse(task.lastModified)), Number.NEGATIVE_INFINITY);
  return new Date(Number.isFinite(newest) ? Math.max(newest, fallback - 60_000) : fallback - 60_000).toISOString();
}
