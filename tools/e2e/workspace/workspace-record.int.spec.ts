import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { describeInChromium, startInboxHarness, type InboxHarness, seriousViolations } from '../inbox/inbox-harness';

/**
 * The record for the payer on a request's page in Chromium (docs/workspace.md, "Nachweis für
 * Kostenträger", "Verlegungsbereit seit"): a person of the hospital sets when the patient was ready
 * for transfer, downloads the CSV through the page's link and finds that time and the clinic's answer
 * in it, the PDF link answers a PDF, and the time is removed again.
 */
const WALDSEE = { ik: '513300081', name: 'Reha-Klinik Waldsee' };
// Berlin's wall clock in December is UTC+1.
const READY_LOCAL = '2026-12-01T09:15';
const READY_UTC = '2026-12-01T08:15:00.000Z';

/** The rows of the record's CSV (RFC 4180, every field quoted, `#` lines are comments) by column name. */
function csvRows(text: string): Record<string, string>[] {
  const lines = text.split('\r\n').filter((line) => line && !line.startsWith('#'));
  const cells = (line: string) => [...line.matchAll(/"((?:[^"]|"")*)"/g)].map((match) => (match[1] ?? '').replaceAll('""', '"'));
  const [header, ...records] = lines.map(cells);
  return records.map((row) => Object.fromEntries((header ?? []).map((name, index) => [name, row[index] ?? ''])));
}

describeInChromium("the hospital's workspace: the record for the payer", () => {
  let harness: InboxHarness;
  let page: Page;
  let identifier: string;
  let taskId: string;
  let answeredAt: string;
  const url = (path: string) => `${harness.baseUrl}/workspace${path}`;
  const readyAt = async () =>
    (
      await harness.stack.api<{ readyAt: string | null }>('POST', '/api/v1/referrer/ready-for-transfer/_read', {
        token: harness.referrerToken,
        body: { identifier },
      })
    ).body.readyAt;

  beforeAll(async () => {
    harness = await startInboxHarness([WALDSEE]);
    ({ identifier } = await harness.sendRequest({ performerIks: [WALDSEE.ik] }));
    taskId = (await harness.taskOf(identifier, WALDSEE.ik)).id;
    const clinicToken = await harness.stack.login(harness.clinics[0]!.username);
    const answered = await harness.stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, {
      token: clinicToken,
      body: { businessStatus: 'accepted', note: 'Bett frei ab Montag' },
    });
    expect(answered.status).toBe(200);
    const history = await harness.stack.api<{ items: { kind: string; at: string }[] }>('GET', `/api/v1/clinic/tasks/${taskId}/history`, { token: clinicToken });
    answeredAt = history.body.items.find((entry) => entry.kind === 'answer')?.at ?? '';
    expect(answeredAt).not.toBe('');
    page = await harness.newPage();
    await harness.logInToWorkspace(page, harness.referrer);
    await page.waitForURL(url('/requests'));
  }, 240_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it('sets the ready-for-transfer time on the page in Berlin time and shows it', async () => {
    await page.goto(url(`/requests/${taskId}`));
    expect(await page.locator('#ready-for-transfer-current').innerText()).toBe('Verlegungsbereit seit: nicht angegeben');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Verlegungsbereit seit').fill(READY_LOCAL);
    await Promise.all([
      page.waitForURL(url(`/requests/${taskId}?readyForTransfer=1`)),
      page.getByRole('button', { name: 'Verlegungsbereitschaft speichern' }).click(),
    ]);
    expect(await page.getByText('Die Verlegungsbereitschaft wurde gespeichert.').count()).toBe(1);
    expect(await page.locator('#ready-for-transfer-current').innerText()).toBe('Verlegungsbereit seit 01.12.2026, 09:15.');
    expect(await page.getByLabel('Verlegungsbereit seit').inputValue()).toBe(READY_LOCAL);
    expect(await readyAt()).toBe(READY_UTC);
    expect(await seriousViolations(page)).toEqual([]);
  }, 60_000);

  it("downloads the CSV through the page link, with the ready-for-transfer time and the clinic's answer in it", async () => {
    await page.goto(url(`/requests/${taskId}`));
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Nachweis als CSV herunterladen' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^nachweis-kostentraeger-\d{4}-\d{2}-\d{2}\.csv$/);
    const rows = csvRows(await readFile(await download.path(), 'utf8'));
    expect(rows.filter((row) => row.event === 'ready-for-transfer').map((row) => row.at_utc)).toEqual([READY_UTC]);
    expect(rows.find((row) => row.event === 'answer')).toMatchObject({
      at_utc: answeredAt,
      clinic_ik: WALDSEE.ik,
      code: 'accepted',
      note: 'Bett frei ab Montag',
    });
  }, 60_000);

  it("answers the PDF link with a PDF, no-store, and another request as the workspace's German page", async () => {
    await page.goto(url(`/requests/${taskId}`));
    const href = await page.getByRole('link', { name: 'Nachweis als PDF herunterladen' }).getAttribute('href');
    expect(href).toBe(`/workspace/requests/${taskId}/record.pdf`);
    // The page's own cookies: the browser context's request client.
    const pdf = await page.request.get(`${harness.baseUrl}${href}`);
    expect([pdf.status(), pdf.headers()['content-type'], pdf.headers()['cache-control']]).toEqual([200, 'application/pdf', 'no-store']);
    expect(pdf.headers()['content-disposition']).toMatch(/^attachment; filename="nachweis-kostentraeger-\d{4}-\d{2}-\d{2}\.pdf"$/);
    expect((await pdf.body()).subarray(0, 5).toString('latin1')).toBe('%PDF-');

    const other = await page.goto(url(`/requests/${randomUUID()}/record.pdf`));
    expect(other?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).not.toBe('');
    expect(await page.content()).toContain('Diese Seite gibt es nicht');
  }, 60_000);

  it('removes the ready-for-transfer time when the field is emptied', async () => {
    await page.goto(url(`/requests/${taskId}`));
    await page.getByLabel('Verlegungsbereit seit').fill('');
    await Promise.all([
      page.waitForURL(url(`/requests/${taskId}?readyForTransfer=1`)),
      page.getByRole('button', { name: 'Verlegungsbereitschaft speichern' }).click(),
    ]);
    expect(await page.locator('#ready-for-transfer-current').innerText()).toBe('Verlegungsbereit seit: nicht angegeben');
    expect(await readyAt()).toBeNull();
  }, 60_000);
});
