import { z } from 'zod';
import { CLINIC_PAGE } from '@bedrequest/contracts';

/**
 * The pages a clinic reads a request's versions and documents in (docs/api.md, "Clinic API"):
 * `_count` items from `_offset`, and never more than MAX_PAGE_BYTES of stored bundles in one
 * answer, whatever the request holds: a page stops before the item that would take it over (it
 * always holds one: a bundle is at most the 10 MiB the gateway reads). `next` is the query of the
 * following page, a relative reference, while more follow.
 */
export const MAX_PAGE_BYTES = CLINIC_PAGE.maxBytes;
const DEFAULT_PAGE_SIZE = CLINIC_PAGE.defaultCount;
const MAX_PAGE_SIZE = CLINIC_PAGE.maxCount;

const pageFields = {
  _count: z.coerce
    .number({ error: `_count: a whole number from 1 to ${MAX_PAGE_SIZE}` })
    .int({ error: `_count: a whole number from 1 to ${MAX_PAGE_SIZE}` })
    .min(1, { error: `_count: a whole number from 1 to ${MAX_PAGE_SIZE}` })
    .max(MAX_PAGE_SIZE, { error: `_count: a whole number from 1 to ${MAX_PAGE_SIZE}` })
    .default(DEFAULT_PAGE_SIZE),
  _offset: z.coerce
    .number({ error: '_offset: a whole number from 0' })
    .int({ error: '_offset: a whole number from 0' })
    .min(0, { error: '_offset: a whole number from 0' })
    .max(1_000_000, { error: '_offset: a whole number from 0 to 1000000' })
    .default(0),
};
const unknownParameter = (known: string) => (issue: { code: string; keys?: string[] }) =>
  issue.code === 'unrecognized_keys' ? `unknown parameter ${(issue.keys ?? []).join(', ')} (known: ${known})` : undefined;

/** `?_count=&_offset=` of the documents. */
export const PageQuery = z.strictObject(pageFields, { error: unknownParameter('_count, _offset') });
export type PageQuery = z.infer<typeof PageQuery>;

/** `?_count=&_offset=&_sort=` of the versions: `version` oldest first (the default), `-version` newest first. */
export const VersionPageQuery = z.strictObject(
  { ...pageFields, _sort: z.enum(['version', '-version'], { error: '_sort: version or -version' }).default('version') },
  { error: unknownParameter('_count, _offset, _sort') },
);
export type VersionPageQuery = z.infer<typeof VersionPageQuery>;

export interface Page<Item> {
  total: number;
  items: Item[];
  next?: string;
}

/** The rows of the page `query` asks for, within `maxBytes`, and the query of the next page. */
export function pageOf<Row extends { bytes: number }>(
  rows: readonly Row[],
  query: PageQuery & { _sort?: string },
  maxBytes: number,
): { rows: Row[]; total: number; next?: string } {
  const taken: Row[] = [];
  let bytes = 0;
  for (const row of rows.slice(query._offset, query._offset + query._count)) {
    if (taken.length > 0 && bytes + row.bytes > maxBytes) break;
    taken.push(row);
    bytes += row.bytes;
  }
  const following = query._offset + taken.length;
  if (following >= rows.length) return { rows: taken, total: rows.length };
  const next = new URLSearchParams({ _count: String(query._count), _offset: String(following), ...(query._sort ? { _sort: query._sort } : {}) });
  return { rows: taken, total: rows.length, next: `?${next.toString()}` };
}
