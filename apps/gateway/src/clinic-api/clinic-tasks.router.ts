import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { TaskListState } from '@bedrequest/contracts';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { forwardedCallOf, ForwardingIntakeClient, type ForwardedCall } from '../fhir/intake.client';
import { passedQuery, RequestVersionPageQuery, TaskHistoryPageQuery } from './clinic-pages';

const LIST_STATE = `(${TaskListState.options.join('|')})`;
/** The list's orders (intake's clinic-task-order.ts). */
const LIST_SORTS = ['occurrence', '-occurrence', 'authored', '-authored', 'status', 'deadline', '-deadline'] as const;
const searchMessage = "q: text of 1 to 100 characters on one line (a request number, a referrer's IK or name, a diagnosis code or text)";

/**
 * `GET /api/v1/clinic/tasks`: the query parameters the gateway lets through (intake checks their
 * values again), and as the OpenAPI document describes them.
 */
export const ClinicTaskListQuery = z.strictObject(
  {
    state: z
      .string()
      .regex(new RegExp(`^${LIST_STATE}(,${LIST_STATE})*$`), `state: one or more of ${TaskListState.options.join(', ')}, comma-separated`)
      .optional()
      .describe(`One or more of ${TaskListState.options.join(', ')}, comma-separated`),
    since: z.iso
      .datetime({ offset: true, error: 'since: an instant with time zone, e.g. 2026-11-21T10:00:00Z' })
      .optional()
      .describe('Only Tasks changed after this instant (with time zone, e.g. 2026-11-21T10:00:00Z)'),
    _sort: z
      .enum(LIST_SORTS, { error: `_sort: one of ${LIST_SORTS.join(', ')}` })
      .optional()
      .describe(
        'The order: `occurrence` / `-occurrence` by the desired admission date (earliest / latest first, requests without one last), `authored` / `-authored` by arrival (oldest / newest first), `status` by list state (new, answered, selected, cancelled; each the most recently changed first), `deadline` / `-deadline` by answer deadline (earliest / latest first, Tasks without one last; pages by `_cursor` too). Without it: open Tasks first, then the most recently changed',
      ),
    q: z
      .string({ error: searchMessage })
      .max(100, { error: searchMessage })
      // eslint-disable-next-line no-control-regex -- refusing control characters is the point
      .regex(/^[^\u0000-\u001f\u007f]*\S[^\u0000-\u001f\u007f]*$/, { error: searchMessage })
      .optional()
      .describe(
        "A search: a request number (the first 4 to 8 hex digits of the Task id with at least one digit, `3F9A-12C0`), exactly the referrer's IK (9 digits), or text matched against the main diagnosis (its code from the start, dots aside, or its text), the referrer's name and IK and the request number, case-insensitively. `total` then counts the matches. Sorted by `occurrence` or searched, a list reads at most 5000 of the clinic's Tasks (more: 400, narrow it with `state` or `since`) and pages by `_offset` alone",
      ),
    _count: z
      .string()
      .regex(/^\d{1,4}$/, '_count: a whole number from 1 to 1000')
      .optional()
      .describe('Page size, a whole number from 1 to 1000'),
    _offset: z
      .string()
      .regex(/^\d{1,9}$/, '_offset: a whole number from 0')
      .optional()
      .describe('Where the page begins, a whole number from 0 to 10000 (intake refuses more: follow `next`, docs/api.md "Paging")'),
    _cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,200}$/, '_cursor: as next writes it')
      .optional()
      .describe('Where the page begins, as `next` writes it past _offset=10000 for the same `_sort` (opaque)'),
  },
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? `unknown parameter ${issue.keys.join(', ')} (known: state, since, _sort, q, _count, _offset, _cursor)` : undefined,
  },
);

/** Intake's internal list and version reads (`/internal/clinic-tasks…`), with the clinic's forwarded token. */
export class ClinicTaskReadsClient extends ForwardingIntakeClient {
  constructor(intakeUrl: string, timeoutMs = 10_000) {
    super(intakeUrl, '/internal/clinic-tasks', 'the Task store is unavailable; please retry', { timeoutMs, connections: 8 });
  }

  list(query: URLSearchParams, call: ForwardedCall) {
    return this.call('GET', '', call, { query });
  }

  versions(taskId: string, query: URLSearchParams, call: ForwardedCall) {
    return this.call('GET', `/${encodeURIComponent(taskId)}/versions`, call, { query });
  }

  history(taskId: string, query: URLSearchParams, call: ForwardedCall) {
    return this.call('GET', `/${encodeURIComponent(taskId)}/history`, call, { query });
  }
}

/**
 * The clinic's list and history reads (clinic tokens only; mount behind the clinic-role guard at
 * `/api/v1/clinic`), what the clinic inbox shows and integrators may use alike:
 *
 * - `GET /tasks?state=&since=&_sort=&q=&_count=&_offset=&_cursor=`: 200 `{total, counts, items, next?}`;
 *   one summary per Task addressed to the clinic, open (`requested`) first, then the most recently
 *   changed, or in the order `_sort` names; `q` searches; 400 `invalid_request` for anything else.
 * - `GET /tasks/{taskId}/versions?_count=&_offset=&_sort=`: 200 `{total, items: [{version,
 *   receivedAt, bundle}], next?}`, a page of the AdmissionRequestBundle versions the clinic was sent
 *   (clinic-pages.ts: oldest first, or newest with `_sort=-version`; at most 16 MiB of bundles); 400
 *   for another parameter; 404 for another clinic's Task, 410 once the request's patient data was
 *   erased (intake's message passed on).
 * - `GET /tasks/{taskId}/history?_count=&_offset=`: 200 `{total, items, next?}`, a page of the Task's
 *   answers (with their notes and authors), deliveries of documents and request changes, newest
 *   first; 400, 404 and 410 as for the versions.
 *
 * All carry patient data: `Cache-Control: no-store`. Intake's JSON goes back unread (like Task
 * reads: a page of versions may be 16 MiB); intake unavailable is 503 with Retry-After.
 */
export function clinicTasksRouter(options: { reads: ClinicTaskReadsClient; logger: Logger }): Router {
  const router = Router();
  const pass = (res: Response, answer: { status: number; body: Buffer }) => {
    if (answer.status === 404) throw new HttpError('not_found', 'no such Task');
    res.status(answer.status).set('cache-control', 'no-store').type('application/json').send(answer.body);
  };

  router.get('/tasks', async (req: Request, res: Response) => {
    pass(res, await options.reads.list(passedQuery(ClinicTaskListQuery, req.query), forwardedCallOf(req, res)));
  });

  router.get('/tasks/:taskId/versions', async (req: Request, res: Response) => {
    if (!z.guid().safeParse(req.params.taskId).success) throw new HttpError('not_found', 'no such Task');
    const query = passedQuery(RequestVersionPageQuery, req.query);
    pass(res, await options.reads.versions(String(req.params.taskId), query, forwardedCallOf(req, res)));
  });

  router.get('/tasks/:taskId/history', async (req: Request, res: Response) => {
    if (!z.guid().safeParse(req.params.taskId).success) throw new HttpError('not_found', 'no such Task');
    const query = passedQuery(TaskHistoryPageQuery, req.query);
    pass(res, await options.reads.history(String(req.params.taskId), query, forwardedCallOf(req, res)));
  });

  router.use(jsonErrorHandler(options.logger));
  return router;
}
