import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { ClinicTaskList, ClinicTaskSummary } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { apiCallOf, pageContextOf, sendPage, sessionOf, type InboxContext } from './inbox-context';
import { LIST_SORTS, ListAddresses, listQuery, positionAfter, searchOf, type ListMemory, type ListSort } from './list-position';
import { COOKIES, cookiesOf } from './session';
import { workspaceMarksFor } from './workspace-routes';
import { errorPage } from './pages/error.page';
import { isInFilter, LIST_FILTERS, MAX_SORTED_IN_MEMORY, taskListPage, taskRow, type ListFilter } from './pages/task-list.page';

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
const Sort = z.enum(LIST_SORTS).optional().catch(undefined);
/** The cookie of what the list remembers (list-position.ts ListMemory), sealed under the session's key, on /inbox only. */
const MEMORY_COOKIE = COOKIES.list;
/** A session's first list: the selections of the last day count as new. */
const FIRST_LOOK_MS = 24 * 3600_000;
/** The most new selections put on top. */
const MAX_NEW_SELECTIONS = 50;

/** The list of requests, a page at a time (list-position.ts), and its live updates. */
export function listRoutes(context: InboxContext): Router {
  const router = Router();
  const { texts, formats } = context;

  router.get('/tasks', async (req, res) => {
    const addresses = addressesOf(res);
    const memory = addresses.readMemory(cookiesOf(req).get(MEMORY_COOKIE));
    // Back from a request (its back link, the navigation): the list as it was left (docs/inbox.md, "Anfragen").
    if (memory.address && memory.address !== '/inbox/tasks' && Object.keys(req.query).length === 0 && comesFromInboxPage(req)) {
      return res.redirect(303, memory.address);
    }
    const filter = Filter.parse(req.query.filter);
    const sort = Sort.parse(req.query.sort);
    const search = memory.search;
    const position = addresses.read({ page: Page.parse(req.query.page), cursor: req.query.cursor });
    const call = apiCallOf(req, res);
    const list = position && (await context.api.tasks(listQuery(filter, LIST_PAGE_SIZE, position, sort, search), call));
    if (!position || !list) {
      // An address the list did not offer (a page past the API's bound by number, a position of another
      // session), or a search or order over more requests than the API sorts in one go.
      const back = { href: addresses.href(filter), label: texts.list.first };
      if (position && (search !== undefined || sort)) {
        // The search is dropped with it, or the link back would meet the same refusal.
        const kept: ListMemory = { ...memory, address: addresses.href(filter) };
        delete kept.search;
        remember(res, addresses, kept);
        return sendPage(res, errorPage(await pageContextOf(context, req, res), texts.list.searchTooBroad, back), 400);
      }
      return sendPage(res, errorPage(await pageContextOf(context, req, res), texts.list.unavailable, back), 400);
    }
    const now = Date.now();
    const first = position.page === 1 && position.after === undefined;
    // New selections lead the first page of the tabs they belong on, in any order, outside a search.
    const showsSelections = first && search === undefined && (filter === 'all' || filter === 'selected');
    const newSelections = showsSelections ? await selectionsSince(memory.selectionsSeenAt ?? now - FIRST_LOOK_MS, req, res) : [];
    // "Neu" and "In Bearbeitung" as the clinic shares them (docs/inbox.md, "Gemeinsam bearbeiten").
    const { marks, unseen } = await workspaceMarksFor(
      context,
      req,
      res,
      [...newSelections, ...list.items].map((task) => task.id),
    );
    const next = positionAfter(position, list.next);
    const pages = Math.max(1, Math.ceil(list.total / LIST_PAGE_SIZE));
    const self = addresses.href(filter, position, sort);
    remember(res, addresses, { ...memory, address: self, ...(showsSelections ? { selectionsSeenAt: now } : {}) });
    sendPage(
      res,
      taskListPage(await pageContextOf(context, req, res), {
        list,
        filter,
        ...(sort ? { sort } : {}),
        ...(search !== undefined ? { search } : {}),
        newSelections,
        marks,
        ...(unseen !== undefined ? { unseen } : {}),
        dateSortOffered: (filter === 'all' ? Object.values(list.counts).reduce((sum, count) => sum + count, 0) : list.counts[filter]) <= MAX_SORTED_IN_MEMORY,
        formats,
        cursor: cursorOf(list, now),
        now,
        // Live rows are placed in the default order of the whole list.
        live: first && !sort && search === undefined,
        pager: {
          page: position.page,
          pages,
          self,
          tabs: Object.fromEntries(LIST_FILTERS.map((candidate) => [candidate, addresses.href(candidate, { page: 1 }, sort)])) as Record<ListFilter, string>,
          sorts: Object.fromEntries(
            [...LIST_SORTS, 'default' as const].map((candidate) => [
              candidate,
              addresses.href(filter, { page: 1 }, candidate === 'default' ? undefined : candidate),
            ]),
          ) as Record<ListSort | 'default', string>,
          // Past the numbered pages the API pages forward only: back is to the start (and the browser's Back).
          ...(position.after !== undefined
            ? { start: addresses.href(filter, { page: 1 }, sort) }
            : position.page > 1
              ? { previous: addresses.href(filter, { page: Math.min(position.page - 1, pages) }, sort) }
              : {}),
          ...(next ? { next: addresses.href(filter, next, sort) } : {}),
        },
      }),
    );
  });

  // The search goes by POST and is kept sealed in the browser (ListMemory), never in an address: it may name a diagnosis.
  router.post('/tasks/search', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const filter = Filter.parse(body.filter);
    const sort = Sort.parse(body.sort);
    const addresses = addressesOf(res);
    const memory = addresses.readMemory(cookiesOf(req).get(MEMORY_COOKIE));
    const search = body.clear === '1' ? undefined : searchOf(body.q);
    if (search === false) {
      const back = { href: addresses.href(filter, { page: 1 }, sort), label: texts.list.first };
      return sendPage(res, errorPage(await pageContextOf(context, req, res), texts.list.searchInvalid, back), 400);
    }
    const target = addresses.href(filter, { page: 1 }, sort);
    const kept: ListMemory = { ...memory, address: target };
    delete kept.search;
    remember(res, addresses, { ...kept, ...(search !== undefined ? { search } : {}) });
    res.redirect(303, target);
  });

  /** The Tasks selected since `since` (ms), newest first: what the list puts on top with its notice. */
  async function selectionsSince(since: number, req: Request, res: Response): Promise<ClinicTaskSummary[]> {
    const query = new URLSearchParams({ state: 'selected', since: new Date(since).toISOString(), _count: String(MAX_NEW_SELECTIONS) });
    const found = await context.api.tasks(query, apiCallOf(req, res));
    return found?.items.filter((task) => task.status === 'in-progress') ?? [];
  }

  router.get('/tasks/updates', async (req, res) => {
    const filter = Filter.parse(req.query.filter);
    const since = z.iso.datetime({ offset: true }).safeParse(req.query.since);
    if (!since.success) throw new HttpError('invalid_request', 'since: an instant');
    const query = new URLSearchParams({ since: new Date(Date.parse(since.data) - POLL_OVERLAP_MS).toISOString(), _count: String(MAX_CHANGES) });
    const list = await context.api.tasks(query, apiCallOf(req, res));
    if (!list) throw new HttpError('invalid_request', 'the list refused the poll');
    const now = Date.now();
    const { marks } = await workspaceMarksFor(
      context,
      req,
      res,
      list.items.map((task) => task.id),
    );
    res.json({
      cursor: cursorOf(list, Date.parse(since.data)),
      counts: { all: Object.values(list.counts).reduce((sum, count) => sum + count, 0), ...list.counts },
      rows: list.items.map((task) => ({
        id: task.id,
        version: task.version,
        status: task.status,
        inFilter: isInFilter(task.status, filter),
        html: taskRow(task, texts, formats, now, false, marks.get(task.id)).markup,
      })),
    });
  });

  /**
   * The list's addresses in this session, its memory sealed under the session id's HMAC with the web
   * app's CSRF key: a value no page carries (the key's tokens of a login form are of 43-character
   * ids without a colon), so the search the memory keeps opens with neither the cookies nor after the
   * session.
   */
  function addressesOf(res: Response): ListAddresses {
    const { id } = sessionOf(res);
    return new ListAddresses(id, context.csrf.tokenOf(`${id}:list-memory`, 'login'));
  }

  return router;
}

/** The memory's cookie, as the session's: httpOnly, SameSite=Strict, on /inbox, Secure in production (inbox.router.ts, secureCookies). */
function remember(res: Response, addresses: ListAddresses, memory: ListMemory): void {
  const secure = process.env.NODE_ENV === 'production' || res.req.secure;
  res.cookie(MEMORY_COOKIE, addresses.sealMemory(memory), { httpOnly: true, sameSite: 'strict', secure, path: '/inbox' });
}

/**
 * Whether the list was reached from another page of the inbox (a request's back link, the
 * navigation): the list's own links (Alle, Zum Anfang) name the address they go to. The pages send
 * their address as Referer to their own origin (Referrer-Policy same-origin); without one, the
 * list is shown as addressed.
 */
function comesFromInboxPage(req: Request): boolean {
  const referer = req.get('referer');
  if (!referer) return false;
  try {
    const from = new URL(referer);
    return (
      from.host === req.get('host') && from.pathname.startsWith('/inbox/') && from.pathname !== '/inbox/tasks' && !from.pathname.startsWith('/inbox/login')
    );
  } catch {
    return false;
  }
}

/** Where the next poll starts: the newest change listed, else `fallback` (a minute back when nothing is listed yet). */
function cursorOf(list: ClinicTaskList, fallback: number): string {
  const newest = list.items.reduce((latest, task) => Math.max(latest, Date.parse(task.lastModified)), Number.NEGATIVE_INFINITY);
  return new Date(Number.isFinite(newest) ? Math.max(newest, fallback - 60_000) : fallback - 60_000).toISOString();
}
