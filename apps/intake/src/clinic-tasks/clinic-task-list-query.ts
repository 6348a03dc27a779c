import { z } from 'zod';
import { TaskListState } from '@bedrequest/contracts';
import { CursorInstant, Keyset, MAX_OFFSET, type Position } from '../search';

export const DEFAULT_LIST_SIZE = 100;
/** A whole inbox of 1,000 rows in one answer (about 0.5 MB of JSON); more is paged with `next`. */
export const MAX_LIST_SIZE = 1000;

/** The list's cursor: the last row's place in its order (open first, then the most recently changed, then id, descending). */
export type ListKey = readonly [open: boolean, lastModified: string, id: string];
export const LIST_KEYS = new Keyset<ListKey>(z.tuple([z.boolean(), CursorInstant, z.guid()]));

const offsetMessage = `_offset: a whole number from 0 to ${MAX_OFFSET}; past it, follow next (it pages on by _cursor), or narrow the list with state or since`;

/**
 * `GET /api/v1/clinic/tasks`: `state` (one or more of new, answered, selected, cancelled,
 * comma-separated), `since` (an instant with offset: Tasks changed at or after it), `_count`
 * (1–1000, default 100), `_offset` (at most MAX_OFFSET, search/paging.ts) or `_cursor` (as `next`
 * writes it). Anything else is refused, like the Task search.
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
      _cursor: z
        .string()
        .refine((cursor) => LIST_KEYS.decode(cursor) !== undefined, { error: '_cursor: not a cursor of this list: take it from next as it is' })
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys' ? `unknown parameter ${issue.keys.join(', ')} (known: state, since, _count, _offset, _cursor)` : undefined,
    },
  )
  .refine((query) => query._cursor === undefined || query._offset === 0, { error: '_offset: not with _cursor (next carries one of them)' });
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
