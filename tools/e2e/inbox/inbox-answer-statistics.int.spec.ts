import type { Page } from 'playwright-core';
import { describeInChromium, seriousViolations, startInboxHarness, type InboxHarness } from './inbox-harness';

/**
 * The answer statistics on the pages, in Chromium against the whole stack (docs/inbox.md,
 * "Statistik"; docs/workspace.md, "Antwortzeiten der Kliniken"): four clinics answer five requests
 * each; a clinic sees its own figures beside its three peers' median and no other clinic, and the
 * hospital sees each clinic's figures where it chooses clinics on the new-request form.
 */
const CLINICS = [
  { ik: '513300061', name: 'Rehaklinik Sonnenwald', departments: ['2300'] },
  { ik: '513300062', name: 'Rehaklinik Birkenhain', departments: ['2300'] },
  { ik: '513300063', name: 'Rehaklinik Eichengrund', departments: ['2300'] },
  { ik: '513300064', name: 'Rehaklinik Lindental', departments: ['2300'] },
];
/** The first clinic accepts every request, the others decline every one. */
const answerOf = (index: number) => (index === 0 ? 'accepted' : 'declined');

describeInChromium('answer statistics on the clinic inbox and the hospital workspace', () => {
  let harness: InboxHarness;

  beforeAll(async () => {
    harness = await startInboxHarness(CLINICS);
    const tokens = await Promise.all(harness.clinics.map((clinic) => harness.stack.login(clinic.username)));
    for (let n = 0; n < 5; n++) {
      const { identifier } = await harness.sendRequest({ performerIks: CLINICS.map((clinic) => clinic.ik) });
      for (const [index, clinic] of CLINICS.entries()) {
        const task = await harness.taskOf(identifier, clinic.ik);
        const answer = await harness.stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, {
          token: tokens[index] as string,
          body: { businessStatus: answerOf(index) },
        });
        expect(answer.status).toBe(200);
      }
    }
  }, 240_000);

  afterAll(async () => {
    await harness?.stop();
  });

  const cellsOf = (page: Page, row: string) =>
    page
      .locator('.statistics-table tr', { has: page.getByRole('rowheader', { name: row }) })
      .locator('td')
      .allInnerTexts();

  it("shows a clinic its own figures beside its peers' median on Statistik, and no other clinic", async () => {
    const page = await harness.newPage();
    await harness.logIn(page, harness.clinics[0]!);
    await page.goto(`${harness.baseUrl}/inbox/statistics`);
    expect(await page.getByRole('link', { name: 'Statistik' }).getAttribute('aria-current')).toBe('page');
    expect(await cellsOf(page, 'Beantwortete Anfragen')).toEqual(['5', '3 Kliniken']);
    expect(await cellsOf(page, 'Anteil Zusagen')).toEqual(['100 %', '0 %']);
    const text = await page.locator('main').innerText();
    for (const other of CLINICS.slice(1)) {
      expect(text).not.toContain(other.name);
      expect(text).not.toContain(other.ik);
    }
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('shows the hospital each clinic’s figures where it chooses clinics', async () => {
    const page = await harness.newPage();
    await harness.logInToWorkspace(page, harness.referrer);
    await page.waitForURL(`${harness.baseUrl}/workspace/requests`);
    await page.goto(`${harness.baseUrl}/workspace/requests/new`);
    await page.getByLabel('Gewünschtes Aufnahmedatum *').fill('2036-03-02');
    await page.getByLabel('Fachrichtung *').selectOption('orthopedics');
    await Promise.all([page.waitForURL(/\/requests\/new$/), page.getByRole('button', { name: 'Kliniken für Fachrichtung und Datum anzeigen' }).click()]);
    const choice = (name: string) => page.locator('.clinic-choices li', { hasText: name }).locator('.answer-figures').innerText();
    expect(await choice(CLINICS[0]!.name)).toMatch(
      /^antwortet meist nach \d+ Minuten?, 9 von 10 nach \d+ Minuten?, 100 % Zusagen \(5 Antworten in 90 Tagen\)$/,
    );
    expect(await choice(CLINICS[1]!.name)).toContain('0 % Zusagen (5 Antworten in 90 Tagen)');
    expect(await seriousViolations(page)).toEqual([]);
  });
});
