import { z } from 'zod';
import { TaskListState } from '@bedrequest/contracts';
import { MAX_OFFSET, type Position } from '../search';
import { LIST_SORTS, SQL_ORDERS, sqlSortOf } from './clinic-task-order';
import { MAX_SEARCH_LENGTH } from './clinic-task-search';

export const DEFAULT_LIST_SIZE = 100;
/** A whole inbox of 1,000 rows in one answer (about 0.5 MB of JSON); more is paged with `next`. */
export const MAX_LIST_SIZE = 1000;

const KNOWN = 'state, since, _sort, q, _count, _offset, _cursor';
const searchMessage = `q: text of 1 to ${MAX_SEARCH_LENGTH} characters on one line (a request number, a referrer's IK or name, a diagnosis code or text)`;

const offsetMessage = `_offset: a whole number from 0 to ${MAX_OFFSET}; past it, follow next (it pages on by _cursor), or narrow the list with state or since`;

/**
 * `GET /api/v1/clinic/tasks`: `state` (one or more of new, answered, selected, cancelled,
 * comma-separated), `since` (an instant with offset: Tasks changed at or after it), `_sort` (one of
 * LIST_SORTS: clinic-task-order.ts), `q` (a search: clinic-task-search.ts), `_count` (1–1000,
 * default 100), `_offset` (at most MAX_OFFSET, search/paging.ts) or `_cursor` (as `next` writes it,
 * for the same `_sort`; a list sorted by admission date or searched pages by `_offset` alone).
 * Anything else is refused, like the Task search.
 */
export const ClinicTaskListQuery = z
  .strictObject(
    {
      state: z
        .string()
        .transform((value) => value.split(','))
        .pipe(
          z.array(
            z.enum(TaskListState.options, {
              error: `state: one or more of ${TaskListState.options.join(', ')}, comma-separated`,
            }),
          ),
        )
        .optional(),
      since: z.iso.datetime({ offset: true, error: 'since: an instant with time zone, e.g. 2026-11-21T10:00:00Z' }).optional(),
      _sort: z.enum(LIST_SORTS, { error: `_sort: one of ${LIST_SORTS.join(', ')}` }).optional(),
      q: z
        .string({ error: searchMessage })
        .trim()
        .min(1, { error: searchMessage })
        .max(MAX_SEARCH_LENGTH, { error: searchMessage })
        // eslint-disable-next-line no-control-regex -- refusing control characters is the point
        .refine((text) => !/[\u0000-\u001f\u007f]/.test(text), { error: searchMessage })
        .optional(),
      _count: z.coerce
        .number({ error: `_count: a whole number from 1 to ${MAX_LIST_SIZE}` })
        .int()
        .min(1)
        .max(MAX_LIST_SIZE)
        .default(DEFAULT_LIST_SIZE),
      _offset: z.coerce
        .number({ error: offsetMessage })
        .int({ error: offsetMessage })
        .min(0, { error: offsetMessage })
        .max(MAX_OFFSET, { error: offsetMessage })
        .default(0),
      _cursor: z.string().optional(),
    },
    {
      error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown parameter ${issue.keys.join(', ')} (known: ${KNOWN})` : undefined),
    },
  )
  .refine((query) => query._cursor === undefined || query._offset === 0, { error: '_offset: not with _cursor (next carries one of them)' })
  .refine(
    (query) => {
      if (query._cursor === undefined) return true;
      const sort = query.q === undefined ? sqlSortOf(query._sort) : undefined;
      return sort !== undefined && SQL_ORDERS[sort].keys.decode(query._cursor) !== undefined;
    },
    { error: '_cursor: not a cursor of this list and order: take it from next as it is (a list sorted by occurrence or searched with q pages by _offset)' },
  );
export type ClinicTaskListQuery = z.infer<typeof ClinicTaskListQuery>;

/** The query string of a list page (`?…`): the query's parameters, its position replaced. */
export function listQueryString(query: ClinicTaskListQuery, position: Position): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || name === '_offset' || name === '_cursor') continue;
    parameters.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  if ('cursor' in position) parameters.set('_cursor', position.cursor);
  else if (position.offset > 0) parameters.set('_offset', String(position.offset));
  return `?${parameters.toString()}`;
}
