import { ListAddresses, listQuery, positionAfter, searchOf } from './list-position';

/** An API cursor as intake writes it: base64url JSON of the last row's open flag, lastModified and id. */
const CURSOR = Buffer.from(JSON.stringify([false, '2026-03-01T08:00:00.004Z', '5a0c6f5e-4c57-4e0a-9a51-0d2a1b6f1c11'])).toString('base64url');

/**
 * The addresses of the list's pages: numbered while the API pages by offset, the API's cursor sealed
 * in the session past that (docs/inbox.md, "Anfragen" and "Privacy and security"). The whole path
 * runs against the real services in tools/e2e/inbox/inbox-deep-list.int.spec.ts.
 */
describe('the addresses of the list pages', () => {
  const addresses = new ListAddresses('session-a');
  const queryOf = (href: string) => new URL(href, 'http://inbox.test').searchParams;

  it('numbers the pages the API reaches by offset and asks it for the offset', () => {
    expect(addresses.href('all')).toBe('/inbox/tasks');
    expect(addresses.href('new', { page: 3 })).toBe('/inbox/tasks?filter=new&page=3');
    expect(addresses.read({ page: 3 })).toEqual({ page: 3 });
    expect(listQuery('new', 250, { page: 3 }).toString()).toBe('_count=250&_offset=500&state=new');
    expect(listQuery('all', 250, { page: 1 }).toString()).toBe('_count=250');
  });

  it("follows the API's next: by number while it carries _offset, by its cursor once it carries one, nowhere at the end", () => {
    expect(positionAfter({ page: 40 }, '?_count=250&_offset=10000')).toEqual({ page: 41 });
    expect(positionAfter({ page: 41 }, `?_count=250&state=cancelled&_cursor=${CURSOR}`)).toEqual({ page: 42, after: CURSOR });
    expect(positionAfter({ page: 44, after: CURSOR }, undefined)).toBeUndefined();
    expect(listQuery('cancelled', 250, { page: 42, after: CURSOR }).toString()).toBe(`_count=250&_cursor=${CURSOR}&state=cancelled`);
  });

  it('carries the cursor sealed: the address holds nothing of it, and only the session that sealed it opens it', () => {
    const href = addresses.href('all', { page: 42, after: CURSOR });
    const query = queryOf(href);
    expect([...query.keys()]).toEqual(['page', 'cursor']);
    const sealed = query.get('cursor')!;
    expect(href).not.toContain(CURSOR);
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toMatch(/2026|5a0c6f5e|false/);
    expect(addresses.read({ page: 42, cursor: sealed })).toEqual({ page: 42, after: CURSOR });
    expect(new ListAddresses('session-a').read({ page: 42, cursor: sealed })).toEqual({ page: 42, after: CURSOR });

    expect(new ListAddresses('session-b').read({ page: 42, cursor: sealed })).toBeUndefined();
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    expect(addresses.read({ page: 42, cursor: bytes.toString('base64url') })).toBeUndefined();
    for (const cursor of [CURSOR, '', 'not a position', ['a', 'b'], 'A'.repeat(401)]) expect(addresses.read({ page: 42, cursor })).toBeUndefined();
  });

  it('names the order in the address and asks the API for it, and the search only of the API', () => {
    expect(addresses.href('new', { page: 2 }, '-occurrence')).toBe('/inbox/tasks?filter=new&sort=-occurrence&page=2');
    expect(listQuery('all', 250, { page: 1 }, 'occurrence', 'M16').toString()).toBe('_count=250&_sort=occurrence&q=M16');
  });

  it('takes a search of one line up to 100 characters, blank as none', () => {
    expect(searchOf('  M16.1 ')).toBe('M16.1');
    expect(searchOf('   ')).toBeUndefined();
    expect(searchOf(undefined)).toBeUndefined();
    for (const typed of ['x'.repeat(101), 'a\nb', ['a']]) expect(searchOf(typed)).toBe(false);
  });

  it('remembers the list sealed under a secret of the session, the search never readable', () => {
    const remembering = new ListAddresses('session-a', 'secret-a');
    const sealed = remembering.sealMemory({ address: '/inbox/tasks?filter=new', search: 'Koxarthrose', selectionsSeenAt: 1 });
    expect(Buffer.from(sealed, 'base64url').toString('latin1')).not.toMatch(/Koxarthrose|filter/);
    expect(remembering.readMemory(sealed)).toEqual({ address: '/inbox/tasks?filter=new', search: 'Koxarthrose', selectionsSeenAt: 1 });
    // The session id alone (the browser's cookie) opens nothing, nor does another session's secret.
    expect(addresses.readMemory(sealed)).toEqual({});
    expect(new ListAddresses('session-a', 'secret-b').readMemory(sealed)).toEqual({});
    expect(remembering.readMemory(undefined)).toEqual({});
    expect(remembering.readMemory(remembering.sealMemory({ address: 'https://elsewhere.example/' } as never))).toEqual({});
  });
});
