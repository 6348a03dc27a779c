import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { describeInChromium, startInboxHarness, type InboxHarness, seriousViolations } from './inbox-harness';

/**
 * The list built for a day's work, in Chromium against the whole stack (docs/inbox.md, "Anfragen"):
 * sorted by the desired admission date with the column header's link, searched by request number,
 * its tab, order and search kept on the way back from a request, new selections on top with a
 * notice, an automatic answer marked "automatisch"; axe-core, keyboard only and 640 px wide.
 */
const HANG = { ik: '513400001', name: 'Reha-Klinik Am Hang' };
// Offers no orthopaedics, which the fixture's requests ask for: intake declines for it at once, automatically.
const NORD = { ik: '513400002', name: 'Fachklinik Nord', departments: ['0300'] };
const DATES = ['2027-01-20', '2027-01-05', '2027-01-12'];

describeInChromium('the list of requests, built for the work', () => {
  let inbox: InboxHarness;
  let page: Page;
  const taskIds: string[] = [];
  const identifiers: string[] = [];

  const rowIds = (target: Page) => target.locator('#task-list tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-task-id')));
  const datesShown = (target: Page) => target.locator('#task-list tbody tr td:nth-of-type(2)').allInnerTexts();

  beforeAll(async () => {
    inbox = await startInboxHarness([HANG, NORD]);
    for (const occurrenceDate of DATES) {
      const { identifier } = await inbox.sendRequest({ occurrenceDate });
      identifiers.push(identifier);
      taskIds.push((await inbox.taskOf(identifier, HANG.ik)).id);
    }
    page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
  }, 240_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  it('sorts by the desired admission date with the column header, either way, and says so with aria-sort', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/tasks`);
    const header = page.locator('th', { has: page.getByRole('link', { name: /^Aufnahme gewünscht/ }) });
    await expect(header.getAttribute('aria-sort')).resolves.toBeNull();
    await Promise.all([page.waitForURL(/sort=occurrence/), page.getByRole('link', { name: /^Aufnahme gewünscht/ }).click()]);
    expect(await datesShown(page)).toEqual(['05.01.2027', '12.01.2027', '20.01.2027']);
    await expect(header.getAttribute('aria-sort')).resolves.toBe('ascending');
    await Promise.all([page.waitForURL(/sort=-occurrence/), page.getByRole('link', { name: /^Aufnahme gewünscht/ }).click()]);
    expect(await datesShown(page)).toEqual(['20.01.2027', '12.01.2027', '05.01.2027']);
    await expect(header.getAttribute('aria-sort')).resolves.toBe('descending');
  });

  it('finds exactly the request of a request number, keeping the number out of the address', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/tasks`);
    const wanted = taskIds[1]!;
    const head = wanted.replace(/-/g, '').slice(0, 8).toUpperCase();
    await page.getByLabel('Anfragenummer, Diagnose oder Zuweiser').fill(`${head.slice(0, 4)}-${head.slice(4)}`);
    await Promise.all([page.waitForURL(/\/inbox\/tasks/), page.getByRole('button', { name: 'Suchen', exact: true }).click()]);
    expect(await rowIds(page)).toEqual([wanted]);
    await expect(page.locator('.search-result').innerText()).resolves.toContain('1 Anfrage');
    expect(page.url()).not.toContain(head.slice(0, 4));
    await Promise.all([page.waitForURL(/\/inbox\/tasks/), page.getByRole('button', { name: 'Suche aufheben' }).click()]);
    expect((await rowIds(page)).length).toBe(3);
  });

  it("keeps the tab and the order on the way back by the request page's back link", async () => {
    await page.goto(`${inbox.baseUrl}/inbox/tasks?filter=new&sort=-occurrence`);
    await Promise.all([page.waitForURL(/\/inbox\/tasks\/[0-9a-f-]{36}/), page.locator('#task-list tbody tr a').first().click()]);
    await Promise.all([page.waitForURL(/\/inbox\/tasks\?/), page.getByRole('link', { name: /Zurück zur Liste/ }).click()]);
    expect(new URL(page.url()).search).toBe('?filter=new&sort=-occurrence');
    await expect(page.locator('.filters a[aria-current="page"]').innerText()).resolves.toContain('Neu');
    expect(await datesShown(page)).toEqual(['20.01.2027', '12.01.2027', '05.01.2027']);
  });

  it('puts a new selection on top with a notice, once', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/tasks`);
    await expect(page.locator('.new-selections').count()).resolves.toBe(0);
    // The clinic accepts the one with the latest date; the referrer selects it.
    const chosen = taskIds[0]!;
    const token = await inbox.stack.login(inbox.clinics[0]!.username);
    expect((await inbox.stack.api('POST', `/api/v1/clinic/tasks/${chosen}/answer`, { token, body: { businessStatus: 'accepted' } })).status).toBe(200);
    const identifier = identifiers[0]!;
    await inbox.sendRequest({
      requestIdentifier: identifier,
      intent: 'order',
      orderDetail: 'selected-provider',
      performerIks: [HANG.ik],
      patient: 'complete',
      occurrenceDate: DATES[0],
    });
    await waitFor(async () => (await inbox.taskOf(identifier, HANG.ik)).status === 'in-progress', { what: 'the selection' });

    await page.goto(`${inbox.baseUrl}/inbox/tasks?sort=occurrence`);
    await expect(page.locator('.new-selections').innerText()).resolves.toBe('1 neue Auswahl: Patient wird aufgenommen');
    expect((await rowIds(page))[0]).toBe(chosen);
    await expect(page.locator('#task-list tbody tr').first().innerText()).resolves.toContain('Neu ausgewählt');
    await page.reload();
    await expect(page.locator('.new-selections').count()).resolves.toBe(0);
  });

  it('marks an automatic answer as such by its status', async () => {
    const nord = await inbox.newPage();
    await inbox.logIn(nord, inbox.clinics[1]!);
    await nord.goto(`${inbox.baseUrl}/inbox/tasks`);
    // Declined by intake for the department not offered; the one selected elsewhere is cancelled since, and no longer says so.
    const declined = await nord.locator('#task-list tbody tr[data-status="rejected"] td.status').allInnerTexts();
    expect(declined.length).toBeGreaterThanOrEqual(2);
    for (const status of declined) expect(status).toMatch(/automatisch$/);
    const cancelled = await nord.locator('#task-list tbody tr[data-status="cancelled"] td.status').allInnerTexts();
    for (const status of cancelled) expect(status).not.toContain('automatisch');
  });

  it('passes axe-core, works by keyboard and fits 640 px without scrolling sideways', async () => {
    const narrow = await inbox.newPage({ width: 640, height: 900 });
    await inbox.logIn(narrow, inbox.clinics[0]!);
    const found: Record<string, string[]> = {};
    await narrow.goto(`${inbox.baseUrl}/inbox/tasks?sort=occurrence`);
    found.sorted = await seriousViolations(narrow);
    const sideways = () => narrow.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    await expect(sideways()).resolves.toBeLessThanOrEqual(0);

    // Keyboard only: Tab to the search, type, Enter; Tab to a sort link, Enter.
    await narrow.locator('#list-search').focus();
    await narrow.keyboard.type('Diabetes');
    await Promise.all([narrow.waitForURL(/\/inbox\/tasks/), narrow.keyboard.press('Enter')]);
    await expect(narrow.locator('.search-result').innerText()).resolves.toContain('Suche „Diabetes“');
    found.searched = await seriousViolations(narrow);
    await expect(sideways()).resolves.toBeLessThanOrEqual(0);
    let reached = false;
    for (let step = 0; step < 40 && !reached; step += 1) {
      await narrow.keyboard.press('Tab');
      reached = await narrow.evaluate(
        () => document.activeElement?.classList.contains('sort-link') === true && /Eingang/.test(document.activeElement.textContent ?? ''),
      );
    }
    expect(reached).toBe(true);
    await Promise.all([narrow.waitForURL(/sort=-authored/), narrow.keyboard.press('Enter')]);
    expect(found).toEqual({ sorted: [], searched: [] });
  });
});
