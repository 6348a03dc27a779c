import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Bundle, Condition, Organization, Patient } from '@medplum/fhirtypes';
import { waitFor } from '@bedrequest/testing';
import { admissionRequestBundle, documentBundle } from '@bedrequest/fhir-model/testing';
import { clinicDay, germanDate } from '../clinic-day';
import { describeInChromium, REFERRER_IK, startInboxHarness, type InboxHarness, seriousViolations } from './inbox-harness';

/**
 * Every page of the inbox for accessibility (axe-core: no serious or critical violation; fully
 * usable by keyboard; no sideways scrolling at 200 % zoom), and the beds page (counts and the
 * automatic-answer switch). With INBOX_SCREENSHOTS=<dir> it also writes the screenshots of
 * docs/inbox/ (list, request, answer form).
 */
const WALDSEE = { ik: '513300001', name: 'Reha-Klinik Am Waldsee', departments: ['2300', '0300', '2800'] };
const SCREENSHOTS = process.env.INBOX_SCREENSHOTS;

describeInChromium('the clinic inbox pages', () => {
  let inbox: InboxHarness;
  let page: Page;
  const tasks: Record<'open' | 'supplemented' | 'selected' | 'cancelled' | 'answered' | 'erased', string> = {
    open: '',
    supplemented: '',
    selected: '',
    cancelled: '',
    answered: '',
    erased: '',
  };

  beforeAll(async () => {
    inbox = await startInboxHarness([WALDSEE]);
    const clinicToken = await inbox.stack.login(inbox.clinics[0]!.username);
    const answer = (taskId: string, businessStatus: string, note?: string) =>
      inbox.stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: clinicToken, body: { businessStatus, ...(note ? { note } : {}) } });
    const send = async (options: Parameters<InboxHarness['sendRequest']>[0], variant?: Variant) => {
      const identifier = options?.requestIdentifier;
      const { identifier: sent } = identifier && variant ? await sendVaried(inbox, identifier, options, variant) : await inbox.sendRequest(options);
      return { identifier: sent, taskId: (await inbox.taskOf(sent, WALDSEE.ik)).id };
    };
    const id = () => `https://inbox-hospital.example/fhir/ServiceRequest/${randomUUID()}`;

    // A request the referrer had erased (data protection): its Task stays as the tombstone.
    const erased = await send(
      { requestIdentifier: id() },
      {
        gender: 'female',
        birthDate: '1939-04-18',
        diagnosis: ['I63.5', 'Hirninfarkt durch Verschluss zerebraler Arterien'],
        requester: 'Klinikum Nord',
        specialty: 'neurology',
      },
    );
    const erasure = await inbox.stack.api('DELETE', `/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(erased.identifier)}`, {
      token: inbox.referrerToken,
    });
    if (erasure.status !== 202) throw new Error(`the erasure answered ${erasure.status}`);
    tasks.erased = erased.taskId;

    const cancelled = await send(
      { requestIdentifier: id() },
      {
        gender: 'male',
        birthDate: '1949-05-02',
        diagnosis: ['I63.4', 'Hirninfarkt durch Embolie zerebraler Arterien'],
        requester: 'Klinikum Nord',
        specialty: 'neurology',
      },
    );
    await inbox.sendRequest({ requestIdentifier: cancelled.identifier, status: 'revoked' });
    tasks.cancelled = cancelled.taskId;

    const selected = await send(
      { requestIdentifier: id() },
      { gender: 'female', birthDate: '1961-09-12', diagnosis: ['M17.1', 'Sonstige primäre Gonarthrose'], requester: 'St. Marien-Krankenhaus' },
    );
    await answer(selected.taskId, 'accepted');
    await sendVaried(
      inbox,
      selected.identifier,
      { requestIdentifier: selected.identifier, intent: 'order', orderDetail: 'selected-provider', performerIks: [WALDSEE.ik], patient: 'complete' },
      { gender: 'female', birthDate: '1961-09-12', diagnosis: ['M17.1', 'Sonstige primäre Gonarthrose'], requester: 'St. Marien-Krankenhaus' },
    );
    tasks.selected = selected.taskId;

    const answered = await send(
      { requestIdentifier: id() },
      {
        gender: 'male',
        birthDate: '1958-02-20',
        diagnosis: ['I21.0', 'Akuter transmuraler Myokardinfarkt der Vorderwand'],
        requester: 'Herzzentrum West',
        specialty: 'cardiology',
      },
    );
    await answer(answered.taskId, 'more-data-required', 'Bitte Echokardiographie-Befund nachreichen.');
    tasks.answered = answered.taskId;

    const supplemented = await send(
      { requestIdentifier: id(), notes: ['Einzelzimmer erwünscht'] },
      { gender: 'female', birthDate: '1944-11-30', diagnosis: ['S72.01', 'Schenkelhalsfraktur: Intrakapsulär'], requester: 'Akutklinik Mitte' },
    );
    await answer(supplemented.taskId, 'query', 'Ist die Patientin mobil an Unterarmgehstützen?');
    await sendVaried(
      inbox,
      supplemented.identifier,
      {
        requestIdentifier: supplemented.identifier,
        notes: ['Einzelzimmer erwünscht', 'Mobil an Unterarmgehstützen, Treppensteigen mit Hilfe'],
        occurrenceDate: '2026-12-04',
      },
      { gender: 'female', birthDate: '1944-11-30', diagnosis: ['S72.01', 'Schenkelhalsfraktur: Intrakapsulär'], requester: 'Akutklinik Mitte' },
    );
    await inbox.stack.api('POST', '/api/v2/fhir/Bundle', { token: inbox.referrerToken, body: documentBundle({ requestIdentifier: supplemented.identifier }) });
    tasks.supplemented = supplemented.taskId;

    const open = await send(
      { requestIdentifier: id(), occurrenceDate: '2026-12-10' },
      { gender: 'male', birthDate: '1952-06-14', diagnosis: ['Z96.64', 'Vorhandensein einer Hüftgelenkendoprothese'], requester: 'Kreisklinik Süd' },
    );
    tasks.open = open.taskId;
    await waitFor(async () => (await inbox.taskOf(supplemented.identifier, WALDSEE.ik)).status === 'requested', { what: 'the supplement' });

    page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
  }, 240_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  it('has no serious or critical axe-core violation on any page', async () => {
    const anonymous = await inbox.newPage();
    await anonymous.goto(`${inbox.baseUrl}/inbox/login`);
    const found: Record<string, string[]> = { login: await seriousViolations(anonymous) };
    await anonymous.getByRole('button', { name: 'Anmelden' }).click();
    found['login with error'] = await seriousViolations(anonymous);

    const pages: [string, string][] = [
      ['list', '/inbox/tasks'],
      ['list, tab new', '/inbox/tasks?filter=new'],
      ['list, empty tab', '/inbox/tasks?filter=selected&page=2'],
      ['request', `/inbox/tasks/${tasks.open}`],
      ['supplemented request', `/inbox/tasks/${tasks.supplemented}`],
      // Past the last page of both: both sections show their pager.
      ['supplemented request, pages past the last', `/inbox/tasks/${tasks.supplemented}?history=2&documents=2`],
      ['selected request', `/inbox/tasks/${tasks.selected}`],
      ['cancelled request', `/inbox/tasks/${tasks.cancelled}`],
      ['erased request', `/inbox/tasks/${tasks.erased}`],
      ['beds', '/inbox/beds'],
      ['not found', '/inbox/nowhere'],
    ];
    for (const [name, path] of pages) {
      await page.goto(`${inbox.baseUrl}${path}`);
      found[name] = await seriousViolations(page);
    }
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${tasks.open}`);
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    found['answer with errors'] = await seriousViolations(page);
    await page.getByLabel('Zusage').check();
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    found['confirmation'] = await seriousViolations(page);

    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, []])));
  });

  it('shows an erased request as its tombstone: listed without patient data, opened without anything to read or answer', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/tasks`);
    const row = page.locator(`tr[data-task-id="${tasks.erased}"]`);
    await expect(row.locator('th').innerText()).resolves.toContain('Daten gelöscht');
    // Erased before the clinic answered: cancelled, not left open in "Neu" for good.
    await expect(row.getAttribute('data-status')).resolves.toBe('cancelled');
    await expect(row.innerText()).resolves.not.toContain('I63.5');

    await page.goto(`${inbox.baseUrl}/inbox/tasks/${tasks.erased}`);
    await expect(page.locator('main').innerText()).resolves.toContain('aus Datenschutzgründen gelöscht');
    expect(await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).count()).toBe(0);
    expect(await page.locator('main').innerText()).not.toContain('Hirninfarkt');
  });

  it('is usable by keyboard alone: skip link, open a request from the list, answer it', async () => {
    const keyboard = await inbox.newPage();
    await inbox.logIn(keyboard, inbox.clinics[0]!);
    const focused = () =>
      keyboard.evaluate(() =>
        `${document.activeElement?.tagName} ${(document.activeElement as HTMLElement | null)?.innerText ?? ''} ${document.activeElement?.id ?? ''}`.trim(),
      );
    const tabTo = async (matches: (description: string) => boolean, limit = 60) => {
      for (let step = 0; step < limit; step += 1) {
        await keyboard.keyboard.press('Tab');
        if (matches(await focused())) return;
      }
      throw new Error(`not reached by Tab: last focus ${await focused()}`);
    };

    await keyboard.keyboard.press('Tab');
    expect(await focused()).toBe('A Zum Inhalt springen');
    await keyboard.keyboard.press('Enter');
    expect(await focused()).toMatch(/^MAIN .* main$/s);
    await tabTo((description) => description.startsWith('A') && description.includes('männlich, 7'));
    await Promise.all([keyboard.waitForURL(`${inbox.baseUrl}/inbox/tasks/${tasks.open}`), keyboard.keyboard.press('Enter')]);

    await tabTo((description) => description.endsWith('answer-accepted'));
    await keyboard.keyboard.press('ArrowDown'); // declined
    await keyboard.keyboard.press('ArrowDown'); // query
    await keyboard.keyboard.press('Tab');
    expect(await focused()).toMatch(/note$/);
    await keyboard.keyboard.type('Ist eine Begleitperson vorgesehen?');
    await keyboard.keyboard.press('Tab');
    await Promise.all([keyboard.waitForURL(`${inbox.baseUrl}/inbox/tasks/${tasks.open}/confirm`), keyboard.keyboard.press('Enter')]);
    expect(await keyboard.locator('main').innerText()).toContain('Rückfrage');
    await tabTo((description) => description.startsWith('BUTTON Antwort jetzt senden'));
    await Promise.all([keyboard.waitForURL(`${inbox.baseUrl}/inbox/tasks`), keyboard.keyboard.press('Enter')]);
    expect(await keyboard.getByRole('status').first().innerText()).toContain('Ihre Antwort „Rückfrage“ wurde gesendet.');
  });

  it('reflows at 200 % zoom without sideways scrolling of the page', async () => {
    // 200 % of a 1280×900 window: 640×450 CSS pixels at device scale 2.
    const zoomed = await inbox.newPage({ width: 640, height: 450 });
    await inbox.logIn(zoomed, inbox.clinics[0]!);
    for (const path of ['/inbox/tasks', `/inbox/tasks/${tasks.supplemented}`, `/inbox/tasks/${tasks.selected}`, '/inbox/beds', '/inbox/login']) {
      await zoomed.goto(`${inbox.baseUrl}${path}`);
      const { scrollWidth, clientWidth } = await zoomed.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      expect({ path, overflow: scrollWidth > clientWidth }).toEqual({ path, overflow: false });
    }
  });

  it('publishes bed counts per department and date and refuses what is not a count', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/beds?from=${clinicDay(1)}&to=${clinicDay(7)}`);
    await expect(page.locator('table.beds tbody tr').count()).resolves.toBe(7);
    await page.getByLabel(`Freie Betten Orthopädie (2300) am ${germanDate(clinicDay(2))}`).fill('3');
    await page.getByLabel(`Freie Betten Kardiologie (0300) am ${germanDate(clinicDay(5))}`).fill('1');
    await page.getByRole('button', { name: 'Bettenzahlen speichern' }).click();
    await expect(page.getByRole('status').first().innerText()).resolves.toContain('2 Bettenzahlen gespeichert.');
    const counts = await inbox.stack.api<{ items: { department: string; date: string; freeBeds: number }[] }>(
      'GET',
      `/api/v1/clinic/capacity?from=${clinicDay(1)}&to=${clinicDay(7)}`,
      { token: await inbox.stack.login(inbox.clinics[0]!.username) },
    );
    expect(counts.body.items.map(({ department, date, freeBeds }) => ({ department, date, freeBeds }))).toEqual([
      { department: '2300', date: clinicDay(2), freeBeds: 3 },
      { department: '0300', date: clinicDay(5), freeBeds: 1 },
    ]);
    await expect(page.getByLabel(`Freie Betten Orthopädie (2300) am ${germanDate(clinicDay(2))}`).inputValue()).resolves.toBe('3');

    // The browser's own check (min 0, step 1) stops -2 before it is sent; without it the server refuses it.
    await page.getByLabel(`Freie Betten Orthopädie (2300) am ${germanDate(clinicDay(3))}`).fill('-2');
    await page.getByRole('button', { name: 'Bettenzahlen speichern' }).click();
    expect(
      await page
        .getByLabel(`Freie Betten Orthopädie (2300) am ${germanDate(clinicDay(3))}`)
        .evaluate((input: HTMLInputElement) => input.validity.rangeUnderflow),
    ).toBe(true);
    await page.locator('form:has(table.beds)').evaluate((form: HTMLFormElement) => (form.noValidate = true));
    await page.getByRole('button', { name: 'Bettenzahlen speichern' }).click();
    await expect(page.getByRole('alert').first().innerText()).resolves.toContain('Bitte geben Sie ganze Zahlen ab 0 ein.');
    await page.goto(`${inbox.baseUrl}/inbox/beds?from=${clinicDay(1)}&to=${clinicDay(100)}`);
    await expect(page.getByRole('alert').first().innerText()).resolves.toContain('höchstens 31 Tagen');
  });

  it('switches the automatic answers on the beds page, with a confirmation, and refuses the switch without the CSRF token', async () => {
    const registered = async () => (await inbox.stack.admin('clinic', 'list')).split('\n').find((line) => line.startsWith(WALDSEE.ik)) ?? '';
    await page.goto(`${inbox.baseUrl}/inbox/beds?from=${clinicDay(1)}&to=${clinicDay(7)}`);
    const on = page.getByLabel('Ein – der Dienst antwortet aus den Bettenzahlen');
    const off = page.getByLabel('Aus – Sie beantworten jede Anfrage selbst');
    await expect(off.isChecked()).resolves.toBe(true);
    expect(await registered()).not.toContain('automatic answers');

    await on.check();
    await Promise.all([page.waitForURL(/switched=1$/), page.getByRole('button', { name: 'Einstellung speichern' }).click()]);
    await expect(page.getByRole('status').first().innerText()).resolves.toContain('Gespeichert: Automatische Antworten sind eingeschaltet.');
    await expect(page.getByLabel('Ein – der Dienst antwortet aus den Bettenzahlen').isChecked()).resolves.toBe(true);
    // The range shown stays the one chosen.
    expect(new URL(page.url()).searchParams.get('from')).toBe(clinicDay(1));
    expect(await registered()).toContain('automatic answers');

    // The form of another origin, or one without the session's token, changes nothing.
    const refused = await page.request.post(`${inbox.baseUrl}/inbox/beds/auto-answer`, {
      form: { automaticAnswers: 'off' },
      headers: { origin: inbox.baseUrl },
      maxRedirects: 0,
    });
    expect(refused.status()).toBe(403);
    expect(await registered()).toContain('automatic answers');

    await page.getByLabel('Aus – Sie beantworten jede Anfrage selbst').check();
    await page.getByRole('button', { name: 'Einstellung speichern' }).click();
    await expect(page.getByRole('status').first().innerText()).resolves.toContain('Gespeichert: Automatische Antworten sind ausgeschaltet.');
    expect(await registered()).not.toContain('automatic answers');
  });

  (SCREENSHOTS ? it : it.skip)('writes the screenshots of docs/inbox/', async () => {
    const directory = SCREENSHOTS!;
    mkdirSync(directory, { recursive: true });
    const shots = await inbox.newPage({ width: 1280, height: 760 });
    await inbox.logIn(shots, inbox.clinics[0]!);
    await shots.goto(`${inbox.baseUrl}/inbox/tasks/${tasks.answered}`);
    await shots.goto(`${inbox.baseUrl}/inbox/tasks`);
    await shots.screenshot({ path: join(directory, 'inbox-list.png') });
    await shots.goto(`${inbox.baseUrl}/inbox/tasks/${tasks.supplemented}`);
    await shots.screenshot({ path: join(directory, 'inbox-request.png'), fullPage: true });
    await shots.getByLabel('Rückfrage').check();
    await shots.getByLabel('Notiz an den Zuweiser').fill('Bitte aktuellen Röntgenbefund nachreichen.');
    const box = (await shots.locator('section.answer').boundingBox())!;
    await shots.locator('section.answer').scrollIntoViewIfNeeded();
    const margin = 24;
    await shots.screenshot({
      path: join(directory, 'inbox-answer.png'),
      fullPage: true,
      clip: { x: 0, y: box.y - margin, width: 1280, height: box.height + 2 * margin },
    });
  });
});

interface Variant {
  gender: 'male' | 'female';
  birthDate: string;
  diagnosis: [string, string];
  requester: string;
  specialty?: 'orthopedics' | 'cardiology' | 'neurology';
}

/** The fixture request with another patient, main diagnosis and referring hospital: a list that looks like one. */
async function sendVaried(inbox: InboxHarness, identifier: string, options: Parameters<InboxHarness['sendRequest']>[0], variant: Variant) {
  const bundle: Bundle = admissionRequestBundle({
    fhirBase: 'https://inbox-hospital.example/fhir',
    requesterIk: REFERRER_IK,
    performerIks: inbox.clinics.map((clinic) => clinic.ik),
    specialty: variant.specialty ?? 'orthopedics',
    ...options,
    requestIdentifier: identifier,
  });
  for (const entry of bundle.entry ?? []) {
    const resource = entry.resource;
    if (resource?.resourceType === 'Patient') Object.assign(resource as Patient, { gender: variant.gender, birthDate: variant.birthDate });
    if (resource?.resourceType === 'Organization' && (resource as Organization).name === 'Akutklinik Mitte') {
      (resource as Organization).name = variant.requester;
    }
  }
  const condition = bundle.entry?.find((entry) => entry.resource?.resourceType === 'Condition')?.resource as Condition | undefined;
  if (condition?.code?.coding?.[0]) Object.assign(condition.code.coding[0], { code: variant.diagnosis[0], display: variant.diagnosis[1] });
  const answer = await inbox.stack.api('POST', '/api/v2/fhir/Bundle', { token: inbox.referrerToken, body: bundle });
  if (answer.status !== 202) throw new Error(`the request was refused with ${answer.status}: ${JSON.stringify(answer.body)}`);
  return { identifier, bundle };
}
