import axe from 'axe-core';
import { Pool } from 'pg';
import type { APIResponse, Page } from 'playwright-core';
import { describeInChromium, startInboxHarness, type InboxHarness } from './inbox-harness';

/**
 * The inbox's list of a clinic with more requests than the API pages by `_offset` (10,000, docs/api.md
 * "Paging"), 250 a page: following "Ältere Anfragen anzeigen" from the first page reaches every
 * request once, in the list's order, and no link the list offers is refused; past the bound the
 * pages' addresses carry a position that says nothing of the requests (docs/inbox.md, "Privacy and
 * security"), "previous" goes back to the start, and an address the inbox did not offer says what to
 * do instead of failing. The Tasks are written straight into intake's tables (erased requests, so no
 * patient data to seal): through the API 11,000 would take many minutes.
 */
const CLINIC = { ik: '513500001', name: 'Reha-Klinik Tiefental' };
const ROWS = 11_000;
/** One in OPEN_EVERY Task waits for an answer ("Neu"), the rest are cancelled: the "Storniert" tab passes the bound too. */
const OPEN_EVERY = 20;
const PAGE_SIZE = 250;
const UNAVAILABLE = 'Diese Seite der Liste lässt sich nicht aufrufen';

/**
 * A walk renders 41 to 44 pages of 250 requests in Chromium: well under a minute on an idle machine, more
 * than jest's 60 s on a loaded one. The bound only catches a walk that never ends.
 */
const WALK_TIMEOUT_MS = 300_000;

describeInChromium('the inbox list past 10,000 requests', () => {
  let inbox: InboxHarness;
  let page: Page;
  /** The clinic's Task ids in the list's order: open first, then the most recently changed, then id. */
  let all: string[];
  let cancelled: string[];

  beforeAll(async () => {
    inbox = await startInboxHarness([CLINIC]);
    const pool = new Pool({ connectionString: inbox.stack.env.DATABASE_URL, max: 1 });
    const t = (name: string) => `"${inbox.stack.env.INTAKE_DB_SCHEMA}".${name}`;
    try {
      // Few distinct instants, so the id decides much of the order (as it must across a page's end).
      await pool.query(
        `WITH requests AS (
           INSERT INTO ${t('admission_request')} (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
           SELECT gen_random_uuid(), 'https://deep-list.example/fhir/ServiceRequest/' || n, 'deep-list-referrer', '261850001', 'revoked', 'proposal', 1, 'hash', now()
             FROM generate_series(1, $1::int) n RETURNING id, identifier),
         erased AS (INSERT INTO ${t('request_erasure')} (request_id, erased_at, reason, versions, documents) SELECT id, now(), 'retention', 1, 0 FROM requests)
         INSERT INTO ${t('clinic_task')} (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified)
         SELECT gen_random_uuid(), id, 'deep-list-referrer', $2, CASE WHEN n % $3 = 0 THEN 'requested' ELSE 'cancelled' END, 1, now(),
                timestamp with time zone '2026-03-01T08:00:00Z' + (n % 7) * interval '1 millisecond'
           FROM (SELECT id, split_part(identifier, '/', 6)::int AS n FROM requests) numbered`,
        [ROWS, CLINIC.ik, OPEN_EVERY],
      );
      const order = async (where: string) =>
        (
          await pool.query<{ id: string }>(
            `SELECT id::text FROM ${t('clinic_task')} WHERE clinic_ik = $1 ${where} ORDER BY (status = 'requested') DESC, last_modified DESC, id DESC`,
            [CLINIC.ik],
          )
        ).rows.map((row) => row.id);
      all = await order('');
      cancelled = await order(`AND status = 'cancelled'`);
    } finally {
      await pool.end();
    }
    page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
  }, 180_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  const url = (path: string) => `${inbox.baseUrl}${path}`;
  const rowsOf = (target: Page) => target.locator('tr.task-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-task-id')!));
  /** The href of the one link of that name, if there is one: one look-up of the page's roles (each takes a while on a page of 250 rows). */
  const hrefOf = async (target: Page, name: string) => {
    const hrefs = await target.getByRole('link', { name, exact: true }).evaluateAll((links) => links.map((link) => link.getAttribute('href')));
    expect(hrefs.length).toBeLessThanOrEqual(1);
    return hrefs[0] ?? undefined;
  };
  /** The address of the first page past the last one numbered (41: 40 pages of 250 before it), as page 41 links it. */
  const firstPastTheBound = async () => {
    await page.goto(url('/inbox/tasks?page=41'));
    const next = await hrefOf(page, 'Ältere Anfragen anzeigen');
    expect(next).toContain('cursor=');
    return next!;
  };
  /** Every link of the page to a page of the list (tabs, refresh, pager). */
  const listLinksOf = (target: Page) =>
    target.locator('main a[href^="/inbox/tasks?"], main a[href="/inbox/tasks"]').evaluateAll((links) => links.map((link) => link.getAttribute('href')!));

  it(
    'reaches every request once, in order, by "Ältere Anfragen anzeigen", and no link the list offers is refused',
    async () => {
      const seen: string[] = [];
      const visited: string[] = [];
      const offered = new Set<string>();
      for (let path: string | undefined = '/inbox/tasks'; path; path = await hrefOf(page, 'Ältere Anfragen anzeigen')) {
        const answer = await page.goto(url(path));
        expect({ page: visited.length + 1, status: answer?.status() }).toEqual({ page: visited.length + 1, status: 200 });
        visited.push(path);
        seen.push(...(await rowsOf(page)));
        for (const link of await listLinksOf(page)) offered.add(link);
      }
      expect(visited).toHaveLength(Math.ceil(ROWS / PAGE_SIZE));
      expect(seen).toEqual(all);
      await expect(page.locator('nav.pager .meta').innerText()).resolves.toBe(`Seite ${visited.length} von ${visited.length}`);

      // Pages 1 to 41 keep their numbers (page 41 begins at _offset 10,000, the deepest the API takes);
      // from where the API pages by cursor on, the address carries
      // the position, sealed: no request number, state or time of the API's cursor in the browser's history.
      const positions = visited.map((path) => new URL(path, inbox.baseUrl).searchParams);
      const numbered = positions.filter((query) => !query.has('cursor'));
      expect(numbered.map((query) => query.get('page') ?? '1')).toEqual(Array.from({ length: numbered.length }, (_, n) => String(n + 1)));
      expect(numbered).toHaveLength(41);
      for (const [n, query] of positions.slice(numbered.length).entries()) {
        expect([...query.keys()].sort()).toEqual(['cursor', 'page']);
        expect(query.get('page')).toBe(String(numbered.length + n + 1));
        const opened = Buffer.from(query.get('cursor')!, 'base64url').toString('latin1');
        expect(opened).not.toMatch(/\d{4}-\d\d-\d\dT|[0-9a-f]{8}-[0-9a-f]{4}-|true|false/);
      }
      const addresses = visited.join(' ');
      expect(all.filter((id) => addresses.includes(id))).toEqual([]);

      // All at once: each is one request of the same session, answered on its own.
      const others = [...offered].filter((href) => !visited.includes(href));
      const answers = await Promise.all(others.map(async (link) => ({ link, status: (await page.request.get(url(link))).status() })));
      expect(answers).toEqual(others.map((link) => ({ link, status: 200 })));
    },
    WALK_TIMEOUT_MS,
  );

  it(
    'pages a tab past the bound as well: "Storniert", each once, in order',
    async () => {
      const seen: string[] = [];
      let pages = 0;
      for (let path: string | undefined = '/inbox/tasks?filter=cancelled'; path; pages += 1) {
        const answer: APIResponse = await page.request.get(url(path));
        expect({ page: pages + 1, status: answer.status() }).toEqual({ page: pages + 1, status: 200 });
        const markup: string = await answer.text();
        seen.push(...[...markup.matchAll(/<tr class="task-row[^"]*" data-task-id="([^"]+)"/g)].map((match) => match[1]!));
        path = /<a [^>]*href="([^"]+)"[^>]*>Ältere Anfragen anzeigen</.exec(markup)?.[1]?.replaceAll('&amp;', '&');
        if (path) expect(new URL(path, inbox.baseUrl).searchParams.get('filter')).toBe('cancelled');
      }
      expect(pages).toBe(Math.ceil(cancelled.length / PAGE_SIZE));
      expect(seen).toEqual(cancelled);
    },
    WALK_TIMEOUT_MS,
  );

  it('goes back one page by number, and past the bound back to the start; only the first page updates itself', async () => {
    await page.goto(url('/inbox/tasks?page=3'));
    expect(await hrefOf(page, 'Neuere Anfragen anzeigen')).toBe('/inbox/tasks?page=2');
    await expect(page.locator('#task-list').getAttribute('data-updates')).resolves.toBeNull();

    await page.goto(url(await firstPastTheBound()));
    expect(await hrefOf(page, 'Neuere Anfragen anzeigen')).toBeUndefined();
    expect(await hrefOf(page, 'Zum Anfang der Liste')).toBe('/inbox/tasks');
    await Promise.all([page.waitForURL(url('/inbox/tasks')), page.getByRole('link', { name: 'Zum Anfang der Liste' }).click()]);
    expect(await rowsOf(page)).toEqual(all.slice(0, PAGE_SIZE));
    await expect(page.locator('#task-list').getAttribute('data-updates')).resolves.toBe('/inbox/tasks/updates');
  });

  it('answers an address it did not offer (a page past the bound by number, a position of another session, a garbled one) with a way back, not an error', async () => {
    const deep = await firstPastTheBound();
    const other = await inbox.newPage();
    await inbox.logIn(other, inbox.clinics[0]!);
    for (const path of ['/inbox/tasks?page=44', '/inbox/tasks?filter=cancelled&page=43', deep, '/inbox/tasks?page=43&cursor=bm90LWEtcG9zaXRpb24']) {
      const answer = await other.goto(url(path));
      expect({ path, status: answer?.status() }).toEqual({ path, status: 400 });
      await expect(other.locator('main').innerText()).resolves.toContain(UNAVAILABLE);
      const back = await hrefOf(other, 'Zum Anfang der Liste');
      expect(back).toBe(path.includes('filter=cancelled') ? '/inbox/tasks?filter=cancelled' : '/inbox/tasks');
    }
  });

  it('has no serious or critical axe-core violation on a numbered page, a page past the bound and the refusal', async () => {
    const deep = await firstPastTheBound();
    const found: Record<string, string[]> = {};
    for (const [name, path] of [
      ['page 2', '/inbox/tasks?page=2'],
      ['past the bound', deep],
      ['refused', '/inbox/tasks?page=44'],
    ] as const) {
      await page.goto(url(path));
      await page.evaluate(axe.source);
      const results = await page.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
      found[name] = results.violations
        .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
        .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
    }
    expect(found).toEqual({ 'page 2': [], 'past the bound': [], refused: [] });
  });
});
