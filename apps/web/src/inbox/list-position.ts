import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { TaskListState } from '@bedrequest/contracts';
import { z } from 'zod';

/** The list's orders, as the API's `_sort` names them (docs/api.md, "Clinic API"); none is the API's default (open first, then the most recently changed). */
export const LIST_SORTS = ['occurrence', '-occurrence', 'deadline', '-deadline', 'authored', '-authored', 'status'] as const;
export type ListSort = (typeof LIST_SORTS)[number];
/** A tab of the list: one state of the API's, or all of them. */
export type ListFilter = TaskListState | 'all';

/**
 * Where a page of the list begins, as its address names it (docs/inbox.md, "Anfragen"): its number,
 * and once the API pages on by cursor instead of by offset (past `_offset` 10,000: docs/api.md,
 * "Paging") the API's `_cursor` as well, taken from the `next` of the page before. The number alone
 * places the first pages; past them it is what the page shows ("Seite 43 von 44").
 */
export interface ListPosition {
  /** From 1. */
  page: number;
  /** The API's `_cursor` the page begins after. */
  after?: string;
}

const SEALED = /^[A-Za-z0-9_-]{40,400}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * The addresses of the list's pages in one session. The API's cursor names a request by its number,
 * whether it is open and when it last changed, and an address holds request numbers alone
 * (docs/inbox.md, "Privacy and security"): so an address carries the cursor sealed (AES-256-GCM)
 * under a key derived from the session's id, which only the web app holds, and only for as long
 * as the session lasts; a bookmark of such a page ends with its session.
 */
export class ListAddresses {
  private readonly key: Buffer;
  private readonly memoryKey: Buffer;

  /**
   * `memorySecret`: what the list's memory is sealed under, a value of the session the browser never
   * holds (list-routes.ts derives it from the session id with the web app's key), so that the search
   * it keeps opens neither with the cookies alone nor after the session.
   */
  constructor(sessionId: string, memorySecret: string = sessionId) {
    this.key = Buffer.from(hkdfSync('sha256', sessionId, Buffer.alloc(0), 'bedrequest web list position v1', 32));
    this.memoryKey = Buffer.from(hkdfSync('sha256', memorySecret, Buffer.alloc(0), 'bedrequest web list memory v1', 32));
  }

  /** The position an address's query names (`page`, `cursor`); undefined for a cursor this session did not seal. */
  read(query: { page: number; cursor?: unknown }): ListPosition | undefined {
    if (query.cursor === undefined) return { page: query.page };
    const after = typeof query.cursor === 'string' && SEALED.test(query.cursor) ? this.open(query.cursor) : undefined;
    return after === undefined ? undefined : { page: query.page, after };
  }

  /** The address of a page of a tab, in an order. */
  href(filter: ListFilter, position: ListPosition = { page: 1 }, sort?: ListSort): string {
    const query = new URLSearchParams();
    if (filter !== 'all') query.set('filter', filter);
    if (sort) query.set('sort', sort);
    if (position.page > 1) query.set('page', String(position.page));
    if (position.after !== undefined) query.set('cursor', this.seal(position.after));
    return `/inbox/tasks${query.size ? `?${query}` : ''}`;
  }

  /**
   * What the list remembers in the browser between its pages, sealed under the memory's key
   * (docs/inbox.md, "Anfragen"): the address of the list last shown (request numbers and the tab, order and page:
   * no patient data), the search typed (which may be a diagnosis: never in an address), and when the
   * new selections were last shown. Undefined for a value this session did not seal.
   */
  readMemory(sealed: string | undefined): ListMemory {
    if (sealed === undefined || !/^[A-Za-z0-9_-]{40,3000}$/.test(sealed)) return {};
    const opened = this.open(sealed, this.memoryKey);
    if (opened === undefined) return {};
    try {
      const parsed = ListMemory.safeParse(JSON.parse(opened));
      return parsed.success ? parsed.data : {};
    } catch {
      return {};
    }
  }

  sealMemory(memory: ListMemory): string {
    return this.seal(JSON.stringify(memory), this.memoryKey);
  }

  /** iv ‖ tag ‖ ciphertext, base64url. */
  private seal(cursor: string, key = this.key): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const body = Buffer.concat([cipher.update(cursor, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  private open(sealed: string, key = this.key): string | undefined {
    const bytes = Buffer.from(sealed, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES));
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return undefined;
    }
  }
}

/** The longest search the list takes, as the API (docs/api.md, "Clinic API"). */
export const MAX_SEARCH_LENGTH = 100;

/** A search as typed, on one line; undefined for none (blank) — and `false` for one the API would refuse. */
export function searchOf(typed: unknown): string | undefined | false {
  if (typed === undefined || typed === '') return undefined;
  if (typeof typed !== 'string') return false;
  const text = typed.trim();
  if (!text) return undefined;
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  return text.length <= MAX_SEARCH_LENGTH && !/[\u0000-\u001f\u007f]/.test(text) ? text : false;
}

export const ListMemory = z.object({
  /** The list's address last shown (`/inbox/tasks?…`). */
  address: z.string().startsWith('/inbox/tasks').max(1000).optional(),
  search: z.string().max(MAX_SEARCH_LENGTH).optional(),
  /** When the new selections were last shown, ms since the epoch. */
  selectionsSeenAt: z.number().int().optional(),
});
export type ListMemory = z.infer<typeof ListMemory>;

/** The API's query of a page of `size` rows at `position`: `_cursor` past the numbered pages, else `_offset`; in an order, searched. */
export function listQuery(filter: ListFilter, size: number, position: ListPosition, sort?: ListSort, search?: string): URLSearchParams {
  const query = new URLSearchParams({ _count: String(size) });
  if (position.after !== undefined) query.set('_cursor', position.after);
  else if (position.page > 1) query.set('_offset', String((position.page - 1) * size));
  if (filter !== 'all') query.set('state', filter);
  if (sort) query.set('_sort', sort);
  if (search !== undefined) query.set('q', search);
  return query;
}

/**
 * The position of the page after `position`, from the API's `next` (`?…`): by number while `next`
 * pages by `_offset` (a whole page on: the list's pages are never cut short), by its `_cursor` once
 * it carries one. The inbox never decides the bound itself, so it links no page the API refuses.
 */
export function positionAfter(position: ListPosition, next: string | undefined): ListPosition | undefined {
  if (next === undefined) return undefined;
  const cursor = new URLSearchParams(next).get('_cursor');
  return cursor === null ? { page: position.page + 1 } : { page: position.page + 1, after: cursor };
}
