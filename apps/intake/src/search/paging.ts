import { z } from 'zod';
import type { Issue } from '@bedrequest/fhir-model';
import type { ParameterHandler } from './search-query';

/**
 * How intake's searches page (docs/api.md, "Paging"): `_count` rows from `_offset`, and `next`
 * links to follow. `_offset` goes no deeper than MAX_OFFSET: PostgreSQL reads and drops every row
 * before the offset, so a page 10,000 rows in costs 10,000 rows of work. Before that depth the
 * `next` link switches to keyset paging: `_cursor` names the last row of the page by the columns
 * of the search's order, and the next page starts just after it, as cheap as the first. Following
 * `next` links therefore never meets the bound; an `_offset` past it is 400.
 */
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
export const MAX_OFFSET = 10_000;

/** Where a page begins: `offset` rows into the search's order, or just after the row `after` names. */
export interface Paging<Key> {
  count: number;
  offset: number;
  after?: Key;
}

/** Where a link's page begins. */
export type Position = { offset: number } | { cursor: string };

/** A cursor is longer than any this server writes (a timestamp, a uuid, a day and a number, in base64url). */
const MAX_CURSOR_LENGTH = 200;

/**
 * The cursor of a search: the values of its order's columns for one row, as base64url JSON. It is
 * opaque to clients (they take it from a `next` link); a changed one only moves where a page of the
 * caller's own results begins, as the access policy applies to every page.
 */
export class Keyset<Key extends readonly unknown[]> {
  constructor(private readonly schema: z.ZodType<Key>) {}

  encode(key: Key): string {
    return Buffer.from(JSON.stringify(key)).toString('base64url');
  }

  decode(cursor: string): Key | undefined {
    if (cursor.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
    try {
      const parsed = this.schema.safeParse(JSON.parse(Buffer.from(cursor, 'base64url').toString()));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }
}

/** An instant as a cursor holds it: milliseconds, as the columns store them (timestamptz(3)). */
export const CursorInstant = z.iso.datetime({ precision: 3 });

/**
 * `_count` (0 answers the total alone), `_offset` (at most MAX_OFFSET) and `_cursor` (as a `next`
 * link writes it). `narrowBy` names the parameter that narrows the search, for the refusal of an
 * `_offset` past the bound.
 */
export function pagingParameters<T extends Paging<Key>, Key extends readonly unknown[]>(
  keys: Keyset<Key>,
  narrowBy: string,
): Record<'_count' | '_offset' | '_cursor', ParameterHandler<T>> {
  return {
    _count: {
      parse: (parameter, search) => {
        search.count = Number(parameter.single());
        if (!Number.isInteger(search.count) || search.count < 0 || search.count > MAX_PAGE_SIZE) {
          parameter.invalid(`expected an integer from 0 to ${MAX_PAGE_SIZE}`);
        }
      },
    },
    _offset: {
      parse: (parameter, search) => {
        search.offset = Number(parameter.single());
        if (!Number.isSafeInteger(search.offset) || search.offset < 0) parameter.invalid('expected a non-negative integer');
        else if (search.offset > MAX_OFFSET) {
          parameter.invalid(`at most ${MAX_OFFSET}: follow the next link, which pages on by _cursor from there, or narrow the search with ${narrowBy}`);
        }
      },
    },
    _cursor: {
      parse: (parameter, search) => {
        const after = keys.decode(parameter.single());
        if (after) search.after = after;
        else parameter.invalid('not a cursor of this search: take it from a next link as it is');
      },
    },
  };
}

/** A page begins at an offset or after a cursor, not both. */
export function pagingConflict(search: Paging<unknown>): Issue | undefined {
  if (search.after === undefined || search.offset === 0) return undefined;
  return { code: 'invalid', diagnostics: '_offset: not with _cursor (a next link carries one of them)', expression: '_offset' };
}

/** Where this page began, as its `self` link says it. */
export function positionOf<Key extends readonly unknown[]>(search: Paging<Key>, keys: Keyset<Key>): Position {
  return search.after ? { cursor: keys.encode(search.after) } : { offset: search.offset };
}

/**
 * Where the page after one of `shown` rows begins: the next offset while the search pages by offset
 * and that stays within MAX_OFFSET, else just after the page's last row.
 */
export function nextPosition<Key extends readonly unknown[]>(search: Paging<Key>, shown: number, last: Key, keys: Keyset<Key>): Position {
  const offset = search.offset + shown;
  return search.after === undefined && offset <= MAX_OFFSET ? { offset } : { cursor: keys.encode(last) };
}

/** The query string of a page (`?…`, empty for none): the query's parameters, its position replaced. */
export function pageQueryString(query: Record<string, unknown>, position: Position): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (name === '_offset' || name === '_cursor') continue;
    for (const single of Array.isArray(value) ? value : [value]) params.append(name, String(single));
  }
  if ('cursor' in position) params.set('_cursor', position.cursor);
  else if (position.offset > 0) params.set('_offset', String(position.offset));
  const parameters = params.toString();
  return parameters ? `?${parameters}` : '';
}
