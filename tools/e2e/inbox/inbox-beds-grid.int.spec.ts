import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Dialog, Page } from 'playwright-core';
import { clinicDay, germanDate } from '../clinic-day';
import { describeInChromium, startInboxHarness, type InboxHarness, seriousViolations } from './inbox-harness';

/**
 * The beds grid as a clerk works with it, in Chromium against the whole stack (docs/inbox.md,
 * "Betten"): weekdays and today on the rows, days gone shown but not edited and refused by the
 * service, what blank and 0 mean, a warning before numbers typed are lost, the automatic-answer
 * switch saving them too, the switch showing the free beds to referrers, one number over a range of
 * days, 390 px without sideways scrolling, 200 % zoom, keyboard only and axe-core. With INBOX_SCREENSHOTS=<dir> it also writes the beds page's
 * screenshot of docs/inbox/.
 */
const SCREENSHOTS = process.env.INBOX_SCREENSHOTS;
const SONNENHANG = { ik: '513300061', name: 'Reha-Zentrum Sonnenhang', departments: ['2300', '0300', '2800'] };
const WEEKDAYS = ['So', 'Mo', 'Di', 'Mi', 'Do', 'Fr', 'Sa'];
const weekdayOf = (day: string) => new Date(`${day}T00:00:00Z`).getUTCDay();
/** "Mo 07.12." */
const rowLabel = (day: string) => `${WEEKDAYS[weekdayOf(day)]} ${day.slice(8, 10)}.${day.slice(5, 7)}.`;
const inputLabel = (department: string, day: string) => `Freie Betten ${department} am ${germanDate(day)}`;

describeInChromium('the beds grid for a clerk', () => {
  let inbox: InboxHarness;
  let clinicToken: string;
  let page: Page;
  const [yesterday, today] = [clinicDay(-1), clinicDay(0)];
  const week = `from=${yesterday}&to=${clinicDay(5)}`;

  beforeAll(async () => {
    inbox = await startInboxHarness([SONNENHANG]);
    clinicToken = await inbox.stack.login(inbox.clinics[0]!.username);
    page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
  }, 180_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  const counts = async (from: string, to: string, department?: string) =>
    (
      await inbox.stack.api<{ items: { department: string; date: string; freeBeds: number }[] }>('GET', `/api/v1/clinic/capacity?from=${from}&to=${to}`, {
        token: clinicToken,
      })
    ).body.items
      .filter((item) => !department || item.department === department)
      .map(({ date, freeBeds }) => [date, freeBeds]);

  it('shows each row with its weekday, marks today, keeps days gone read-only, and says what blank and 0 mean', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
    const headers = await page.locator('table.beds tbody th[scope="row"]').allInnerTexts();
    expect(headers).toHaveLength(7);
    expect(headers[0]).toContain(rowLabel(yesterday));
    expect(headers[1]).toBe(`${rowLabel(today)} heute`);
    expect(headers[2]).toBe(rowLabel(clinicDay(1)));
    await expect(page.locator('th[aria-current="date"]').innerText()).resolves.toContain(rowLabel(today));
    // Yesterday is shown without inputs; today and later can be edited.
    await expect(page.getByLabel(inputLabel('Orthopädie (2300)', yesterday)).count()).resolves.toBe(0);
    await expect(page.getByLabel(inputLabel('Orthopädie (2300)', today)).count()).resolves.toBe(1);
    const main = await page.locator('main').innerText();
    expect(main).toContain('Leeres Feld: Sie haben für den Tag keine Zahl gemeldet.');
    expect(main).toContain('0: Sie haben kein Bett frei. Automatische Antworten sagen für diesen Tag ab.');
  });

  it('shows the service refusing a day gone, and says nothing was saved for it', async () => {
    // A page left open over midnight: yesterday's input is still there. (A page of its own: it is left unsaved.)
    const page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
    await page.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
    await page.locator('#beds-form').evaluate((form, name) => {
      const input = document.createElement('input');
      input.type = 'number';
      input.name = name;
      input.value = '2';
      form.querySelector('td')!.append(input);
    }, `beds.2300.${yesterday}`);
    await page.getByLabel(inputLabel('Kardiologie (0300)', clinicDay(2))).fill('1');
    await Promise.all([page.waitForLoadState(), page.getByRole('button', { name: 'Bettenzahlen speichern' }).click()]);

    const alert = await page.getByRole('alert').first().innerText();
    expect(alert).toContain(`Nichts gespeichert. Nicht gespeichert: Orthopädie (2300) am ${rowLabel(yesterday)}${yesterday.slice(0, 4)}.`);
    expect(alert).toContain(`date ${yesterday} is in the past: bed counts are published for today (${today}, Europe/Berlin)`);
    expect(await page.locator('main').innerText()).not.toContain('Bettenzahl gespeichert');
    // The number typed for a day to come is kept, to be saved again.
    await expect(page.getByLabel(inputLabel('Kardiologie (0300)', clinicDay(2))).inputValue()).resolves.toBe('1');
    expect(await counts(yesterday, clinicDay(5))).toEqual([]);
    // It is still unsaved: leaving asks first.
    await page.getByLabel(inputLabel('Kardiologie (0300)', clinicDay(2))).click();
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.type());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Spätere Tage →' }).click({ noWaitAfter: true });
    for (let waited = 0; asked.length === 0 && waited < 5000; waited += 100) await page.waitForTimeout(100);
    expect(asked).toEqual(['beforeunload']);
  });

  it('warns before leaving with numbers typed and not saved, and the automatic-answer switch saves them', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
    const cell = page.getByLabel(inputLabel('Neurologie (2800)', clinicDay(3)));
    await cell.click();
    await page.keyboard.type('5');

    const dialogs: string[] = [];
    const dismiss = (dialog: Dialog) => {
      dialogs.push(dialog.type());
      void dialog.dismiss();
    };
    page.on('dialog', dismiss);
    await page.getByRole('link', { name: 'Spätere Tage →' }).click({ noWaitAfter: true });
    for (let waited = 0; dialogs.length === 0 && waited < 5000; waited += 100) await page.waitForTimeout(100);
    expect(dialogs).toEqual(['beforeunload']);
    // Dismissed: the page and the number stay.
    expect(page.url()).toContain(week);
    await expect(cell.inputValue()).resolves.toBe('5');

    // The setting's button saves the typed number with the setting, and asks nothing.
    await page.getByLabel('Ein – der Dienst antwortet aus den Bettenzahlen').check();
    await Promise.all([page.waitForURL(/switched=1$/), page.getByRole('button', { name: 'Einstellung speichern' }).click()]);
    page.off('dialog', dismiss);
    expect(dialogs).toEqual(['beforeunload']);
    const status = await page.getByRole('status').first().innerText();
    expect(status).toContain('1 Bettenzahl gespeichert.');
    expect(status).toContain('Gespeichert: Automatische Antworten sind eingeschaltet.');
    expect(await counts(today, clinicDay(5), '2800')).toEqual([[clinicDay(3), 5]]);
    expect((await inbox.stack.api<{ enabled: boolean }>('GET', '/api/v1/clinic/capacity/auto-answer', { token: clinicToken })).body.enabled).toBe(true);
  });

  it('says on every page while automatic answers are on, and on none once they are off', async () => {
    const banner = page.locator('#automatic-answers-banner');
    const switchTo = async (label: string) => {
      await page.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
      await page.getByLabel(label).check();
      await Promise.all([page.waitForURL(/switched=1$/), page.getByRole('button', { name: 'Einstellung speichern' }).click()]);
    };
    await switchTo('Ein – der Dienst antwortet aus den Bettenzahlen');
    await expect(banner.innerText()).resolves.toContain('Automatische Antworten sind eingeschaltet');
    await page.goto(`${inbox.baseUrl}/inbox/tasks`);
    await expect(banner.innerText()).resolves.toContain('Automatische Antworten sind eingeschaltet');
    await expect(banner.getByRole('link', { name: 'Einstellung ändern' }).getAttribute('href')).resolves.toBe('/inbox/beds#auto-heading');
    await expect(seriousViolations(page)).resolves.toEqual([]);

    await switchTo('Aus – Sie beantworten jede Anfrage selbst');
    await expect(banner.count()).resolves.toBe(0);
    await page.goto(`${inbox.baseUrl}/inbox/tasks`);
    await expect(banner.count()).resolves.toBe(0);
  });

  it('fills one number over a range of days, Monday to Friday only if asked, and refuses a range beginning on a day gone', async () => {
    const [from, to] = [clinicDay(7), clinicDay(20)];
    await page.goto(`${inbox.baseUrl}/inbox/beds`);
    await page.getByLabel('Fachabteilung', { exact: true }).selectOption('2300');
    await page.getByLabel('Erster Tag').fill(from);
    await page.getByLabel('Letzter Tag').fill(to);
    await page.getByLabel('Freie Betten je Tag').fill('4');
    await page.getByLabel('nur Montag bis Freitag').check();
    await Promise.all([page.waitForURL(/filled=\d+/), page.getByRole('button', { name: 'Für den Zeitraum eintragen' }).click()]);

    const weekdays = Array.from({ length: 14 }, (_, index) => clinicDay(7 + index)).filter((day) => ![0, 6].includes(weekdayOf(day)));
    expect(await page.getByRole('status').first().innerText()).toContain(`Für ${weekdays.length} Tage eingetragen.`);
    expect(await counts(from, to, '2300')).toEqual(weekdays.map((day) => [day, 4]));

    await page.getByLabel('Fachabteilung', { exact: true }).selectOption('0300');
    await page.getByLabel('Erster Tag').fill(yesterday);
    await page.getByLabel('Letzter Tag').fill(clinicDay(2));
    await page.getByLabel('Freie Betten je Tag').fill('2');
    // The browser stops a first day before today (min); without its check the service refuses it.
    await page.locator('#beds-form').evaluate((form: HTMLFormElement) => (form.noValidate = true));
    await page.getByRole('button', { name: 'Für den Zeitraum eintragen' }).click();
    const alert = await page.getByRole('alert').first().innerText();
    expect(alert).toContain(`Nichts gespeichert. Nicht gespeichert: Kardiologie (0300) am ${rowLabel(yesterday)}`);
    expect(alert).toContain(`date ${yesterday} is in the past`);
    expect(await counts(yesterday, clinicDay(2), '0300')).toEqual([]);
  });

  it('fits 390 px without sideways scrolling, reflows at 200 % zoom, and has no serious axe-core violation', async () => {
    for (const width of [390, 640]) {
      const narrow = await inbox.newPage({ width, height: 800 });
      await inbox.logIn(narrow, inbox.clinics[0]!);
      await narrow.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
      const sizes = await narrow.evaluate(() => ({
        page: document.scrollingElement!.scrollWidth,
        table: document.querySelector('table.beds')!.getBoundingClientRect().right,
        scroller: document.querySelector('.table-scroll')!.scrollWidth - document.querySelector('.table-scroll')!.clientWidth,
      }));
      expect({ width, ...sizes }).toEqual({ width, page: width, table: expect.any(Number), scroller: 0 });
      expect(sizes.table).toBeLessThanOrEqual(width);
      await expect(seriousViolations(narrow)).resolves.toEqual([]);
    }
    await page.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
    await expect(seriousViolations(page)).resolves.toEqual([]);
  });

  it('is usable by keyboard only: type a number and save it', async () => {
    const keyboard = await inbox.newPage();
    await inbox.logIn(keyboard, inbox.clinics[0]!);
    await keyboard.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
    const label = inputLabel('Orthopädie (2300)', clinicDay(4));
    for (let presses = 0; presses < 60; presses += 1) {
      await keyboard.keyboard.press('Tab');
      if ((await keyboard.evaluate(() => document.activeElement?.getAttribute('aria-label'))) === label) break;
    }
    expect(await keyboard.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(label);
    await keyboard.keyboard.type('6');
    // Enter in a number field submits with the form's first button, "Bettenzahlen speichern".
    await Promise.all([keyboard.waitForURL(/saved=1/), keyboard.keyboard.press('Enter')]);
    expect(await keyboard.getByRole('status').first().innerText()).toContain('1 Bettenzahl gespeichert.');
    expect(await counts(clinicDay(4), clinicDay(4), '2300')).toEqual([[clinicDay(4), 6]]);
  });

  it('switches the free beds shown to referrers by keyboard alone, says what that means, and has no serious axe-core violation', async () => {
    const keyboard = await inbox.newPage();
    await inbox.logIn(keyboard, inbox.clinics[0]!);
    await keyboard.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
    const section = keyboard.locator('section', { has: keyboard.getByRole('heading', { name: 'Freie Betten für Zuweiser sichtbar' }) });
    await expect(section.innerText()).resolves.toContain('ausgeschaltet sieht sie niemand außer Ihnen');
    await expect(keyboard.getByLabel('Aus – nur Ihre Klinik sieht sie').isChecked()).resolves.toBe(true);
    const focused = () => keyboard.evaluate(() => document.activeElement?.id ?? '');
    // Tab reaches the radio group at its checked button; an arrow key moves to and checks the other.
    for (let presses = 0; presses < 150 && (await focused()) !== 'visibility-off'; presses += 1) await keyboard.keyboard.press('Tab');
    expect(await focused()).toBe('visibility-off');
    await keyboard.keyboard.press('ArrowUp');
    expect(await focused()).toBe('visibility-on');
    await keyboard.keyboard.press('Tab');
    await expect(keyboard.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Sichtbarkeit speichern');
    await Promise.all([keyboard.waitForURL(/shown=1$/), keyboard.keyboard.press('Enter')]);

    expect(await keyboard.getByRole('status').first().innerText()).toContain('Gespeichert: Ihre freien Betten sind für Zuweiser sichtbar.');
    await expect(keyboard.getByLabel('Ein – Zuweiser sehen Ihre freien Betten').isChecked()).resolves.toBe(true);
    const setting = await inbox.stack.api<{ shownToReferrers: boolean }>('GET', '/api/v1/clinic/capacity/visibility', { token: clinicToken });
    expect(setting.body.shownToReferrers).toBe(true);
    // The referrer now reads the clinic's counts of a day it published (the keyboard test above: 6 in 2300).
    const shown = await inbox.stack.api<{ items: { ik: string; department: string; published: number }[] }>(
      'GET',
      `/api/v1/kliniken/free-beds?date=${clinicDay(4)}&department=2300`,
      { token: inbox.referrerToken },
    );
    expect(shown.body.items).toEqual([expect.objectContaining({ ik: SONNENHANG.ik, department: '2300', published: 6 })]);
    await expect(seriousViolations(keyboard)).resolves.toEqual([]);

    await keyboard.getByLabel('Aus – nur Ihre Klinik sieht sie').check();
    await Promise.all([keyboard.waitForURL(/shown=1$/), keyboard.getByRole('button', { name: 'Sichtbarkeit speichern' }).click()]);
    expect(await keyboard.getByRole('status').first().innerText()).toContain('Gespeichert: Ihre freien Betten sind für Zuweiser nicht sichtbar.');
    const hidden = await inbox.stack.api<{ items: unknown[] }>('GET', `/api/v1/kliniken/free-beds?date=${clinicDay(4)}`, { token: inbox.referrerToken });
    expect(hidden.body.items).toEqual([]);
  });

  (SCREENSHOTS ? it : it.skip)('writes the screenshot of docs/inbox/', async () => {
    const directory = SCREENSHOTS!;
    mkdirSync(directory, { recursive: true });
    const shots = await inbox.newPage({ width: 1280, height: 900 });
    await inbox.logIn(shots, inbox.clinics[0]!);
    await shots.goto(`${inbox.baseUrl}/inbox/beds?${week}`);
    await shots.screenshot({ path: join(directory, 'inbox-beds.png') });
  });
});
