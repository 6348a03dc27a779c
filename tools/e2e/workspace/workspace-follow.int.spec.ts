import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { describeInChromium, REFERRER_PARTY, startInboxHarness, type InboxHarness, seriousViolations } from '../inbox/inbox-harness';
import { requestNumberOf } from '../../../apps/web/src/inbox/request-number';

/**
 * The hospital's workspace (docs/workspace.md) in Chromium against the whole stack, driven by its
 * German labels: a person of the hospital's social service logs in at /workspace, finds the request
 * the hospital sent to two clinics, and reads each clinic's state and message (a query, a decline)
 * with the Anfrage-Nr. the clinic quotes on the phone, each answer as it arrives. Another hospital sees none of it, by its list
 * or by a guessed address; a clinic's login is refused here as a hospital's is in the inbox.
 * axe-core, keyboard alone and 200 % zoom.
 */
/** With INBOX_SCREENSHOTS=<dir>, the pictures of docs/workspace.md are written there too. */
const SCREENSHOTS = process.env.INBOX_SCREENSHOTS;
const WALDSEE = { ik: '513300031', name: 'Reha-Klinik Am Waldsee' };
const BERGBLICK = { ik: '513300032', name: 'Fachklinik Bergblick' };
const OTHER_HOSPITAL = { username: 'workspace-other-hospital', ik: '261300099', fhirBase: 'https://other-hospital.example/fhir' };

describeInChromium("the hospital's workspace", () => {
  let harness: InboxHarness;
  let page: Page;
  let waldseeTask: string;
  let bergblickTask: string;
  let firstTask: string;
  /** The Tasks of the request the form created, by clinic IK. */
  let createdTasks: Record<string, string> = {};

  const url = (path: string) => `${harness.baseUrl}/workspace${path}`;
  const logIn = (target: Page, username: string) => harness.logInToWorkspace(target, username);

  beforeAll(async () => {
    harness = await startInboxHarness([WALDSEE, BERGBLICK]);
    await harness.stack.createReferrer(OTHER_HOSPITAL.username, [OTHER_HOSPITAL.ik], OTHER_HOSPITAL.fhirBase);
    const { identifier } = await harness.sendRequest({ performerIks: [WALDSEE.ik, BERGBLICK.ik] });
    [waldseeTask, bergblickTask] = [(await harness.taskOf(identifier, WALDSEE.ik)).id, (await harness.taskOf(identifier, BERGBLICK.ik)).id];
    firstTask = [waldseeTask, bergblickTask].sort()[0]!;
    const answer = async (clinic: (typeof harness.clinics)[number], taskId: string, body: object) => {
      const token = await harness.stack.login(clinic.username);
      const answered = await harness.stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token, body });
      if (answered.status !== 200) throw new Error(`the answer was refused with ${answered.status}`);
    };
    await answer(harness.clinics[0]!, waldseeTask, { businessStatus: 'query', note: 'Ist die Patientin mit Rollator mobil?' });
    await answer(harness.clinics[1]!, bergblickTask, { businessStatus: 'declined', note: 'Keine Kapazität im Dezember.' });
    page = await harness.newPage();
    await logIn(page, harness.referrer);
    await page.waitForURL(url('/requests'));
  }, 240_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("lists the hospital's request with each clinic's state and Anfrage-Nr., under the hospital's name", async () => {
    expect(await page.locator('header .clinic').innerText()).toBe(REFERRER_PARTY.name);
    const rows = page.locator(`table.requests tbody tr[data-request="${firstTask}"]`);
    await expect(page.locator('table.requests tbody tr').count()).resolves.toBe(1);
    const clinics = await rows.first().locator('td').first().innerText();
    expect(clinics).toContain(`${WALDSEE.name} (IK ${WALDSEE.ik}): Rückfrage (Anfrage-Nr. ${requestNumberOf(waldseeTask)})`);
    expect(clinics).toContain(`${BERGBLICK.name} (IK ${BERGBLICK.ik}): Absage (Anfrage-Nr. ${requestNumberOf(bergblickTask)})`);
    // The request's address is its first Task's id: no identifier, no patient data in the URL.
    expect(await rows.first().getByRole('link').getAttribute('href')).toBe(`/workspace/requests/${firstTask}`);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('opens a request by keyboard alone and shows what the query asks and the decline, each clinic with its messages', async () => {
    await page.goto(url('/requests'));
    await page.keyboard.press('Tab'); // the skip link
    let focused = '';
    for (let step = 0; step < 20 && !/^\/workspace\/requests\/[0-9a-f-]{36}$/.test(focused); step += 1) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.getAttribute('href') ?? '');
    }
    await Promise.all([page.waitForURL(url(`/requests/${firstTask}`)), page.keyboard.press('Enter')]);

    const notice = await page.locator('#request-asks').innerText();
    expect(notice).toContain(`${WALDSEE.name} (IK ${WALDSEE.ik}) – Die Klinik hat eine Rückfrage gestellt: Ist die Patientin mit Rollator mobil?`);
    // After the decline, the way on.
    expect(notice).toContain(`${BERGBLICK.name} (IK ${BERGBLICK.ik}) hat abgesagt. Weitere Kliniken anfragen`);
    const waldsee = page.locator(`tr[data-task-id="${waldseeTask}"]`);
    expect(await waldsee.locator('.request-number').innerText()).toBe(requestNumberOf(waldseeTask));
    expect(await waldsee.locator('.status').innerText()).toBe('Rückfrage');
    expect(await waldsee.locator('.notes').innerText()).toContain('Ist die Patientin mit Rollator mobil?');
    const bergblick = page.locator(`tr[data-task-id="${bergblickTask}"]`);
    expect(await bergblick.locator('.status').innerText()).toBe('Absage');
    expect(await bergblick.locator('.notes').innerText()).toContain('Keine Kapazität im Dezember.');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("shows each clinic's answer as it arrives, on the request's page and the list, without a reload", async () => {
    const { identifier } = await harness.sendRequest({ performerIks: [WALDSEE.ik, BERGBLICK.ik] });
    const [waldsee, bergblick] = [(await harness.taskOf(identifier, WALDSEE.ik)).id, (await harness.taskOf(identifier, BERGBLICK.ik)).id];
    const first = [waldsee, bergblick].sort()[0]!;
    const list = await harness.newPage();
    await logIn(list, harness.referrer);
    await list.waitForURL(url('/requests'));
    await page.goto(url(`/requests/${first}`));
    // Marks of these documents: a reload would lose them.
    await page.evaluate(() => Object.assign(window, { notReloaded: true }));
    await list.evaluate(() => Object.assign(window, { notReloaded: true }));
    expect(await page.locator(`tr[data-task-id="${waldsee}"] .status`).innerText()).toBe('Angefragt – Antwort ausstehend');

    const token = await harness.stack.login(harness.clinics[0]!.username);
    const answered = await harness.stack.api('POST', `/api/v1/clinic/tasks/${waldsee}/answer`, { token, body: { businessStatus: 'accepted' } });
    expect(answered.status).toBe(200);

    await page.locator(`tr[data-task-id="${waldsee}"] .status`, { hasText: 'Zusage' }).waitFor({ timeout: 15_000 });
    await list.locator(`tr[data-request="${first}"]`, { hasText: `${WALDSEE.name} (IK ${WALDSEE.ik}): Zusage` }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await list.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
    expect(await page.locator('#live-changes').innerText()).toBe('Eine Klinik hat geantwortet; die Seite zeigt den neuen Stand.');
    expect(await page.locator(`tr[data-task-id="${bergblick}"] .status`).innerText()).toBe('Angefragt – Antwort ausstehend');
  });

  it("erases a request's patient data after a confirmation that says what goes and what stays", async () => {
    const { identifier } = await harness.sendRequest({ performerIks: [WALDSEE.ik] });
    const task = (await harness.taskOf(identifier, WALDSEE.ik)).id;
    await page.goto(url(`/requests/${task}`));
    await Promise.all([page.waitForURL(url(`/requests/${task}/erase`)), page.getByRole('link', { name: 'Patientendaten löschen' }).click()]);
    const main = await page.locator('main').innerText();
    expect(main).toContain('alle nachgereichten Dokumente');
    expect(main).toContain('Erhalten bleiben nur Zeitpunkte und Status je Klinik');
    expect(await seriousViolations(page)).toEqual([]);
    const clinicToken = await harness.stack.login(harness.clinics[0]!.username);
    expect((await harness.stack.api('GET', `/api/v1/clinic/tasks/${task}/bundle`, { token: clinicToken })).status).toBe(200);

    await Promise.all([page.waitForURL(url(`/requests/${task}?erased=1`)), page.getByRole('button', { name: 'Endgültig löschen' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toBe('Die Patientendaten dieser Anfrage wurden gelöscht.');
    expect(await page.locator(`tr[data-task-id="${task}"] .status`).innerText()).toBe('Storniert');
    expect((await harness.stack.api('GET', `/api/v1/clinic/tasks/${task}/bundle`, { token: clinicToken })).status).toBe(410);
  });

  it('filters the list by where each request stands, each tab with its count', async () => {
    await page.goto(url('/requests'));
    const counts = Object.fromEntries(
      await Promise.all(
        ['all', 'open', 'answered', 'selected', 'closed'].map(async (state) => [state, Number(await page.locator(`[data-count="${state}"]`).innerText())]),
      ),
    );
    // The first request (a query and a decline): answered; the second (an acceptance, a clinic still to answer): open; the erased one: closed.
    expect(counts).toEqual({ all: 3, open: 1, answered: 1, selected: 0, closed: 1 });
    for (const [name, state] of [
      ['Offen', 'open'],
      ['Beantwortet', 'answered'],
      ['Abgeschlossen', 'closed'],
    ] as const) {
      await Promise.all([page.waitForURL(url(`/requests?filter=${state}`)), page.getByRole('link', { name: new RegExp(`^${name} `) }).click()]);
      const states = await page.locator('table.requests tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-state')));
      expect(states).toEqual([state]);
      expect(await page.getByRole('link', { name: new RegExp(`^${name} `) }).getAttribute('aria-current')).toBe('page');
    }
    await page.getByRole('link', { name: /^Ausgewählt / }).click();
    expect(await page.locator('main').innerText()).toContain('Keine Anfragen in dieser Ansicht.');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('fits 640 px (200 % zoom) without sideways scrolling', async () => {
    const zoomed = await harness.newPage({ width: 640, height: 450 });
    await logIn(zoomed, harness.referrer);
    const overflow = () => zoomed.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    await zoomed.goto(url('/requests'));
    expect(await overflow()).toBe(false);
    await zoomed.goto(url(`/requests/${firstTask}`));
    expect(await overflow()).toBe(false);
    await zoomed.goto(url('/requests/new'));
    expect(await overflow()).toBe(false);
  });

  it('shows another hospital none of it, by its list or a guessed address', async () => {
    const other = await harness.newPage();
    await logIn(other, OTHER_HOSPITAL.username);
    await other.waitForURL(url('/requests'));
    expect(await other.locator('table.requests').count()).toBe(0);
    expect(await other.locator('main').innerText()).toContain('Ihr Krankenhaus hat noch keine Anfrage gesendet.');
    for (const taskId of [waldseeTask, bergblickTask]) {
      for (const path of ['', '/supplement', '/documents', '/erase', '/withdraw', '/revoke', `/select/${taskId}`]) {
        const answer = await other.goto(url(`/requests/${taskId}${path}`));
        expect([path, answer?.status()]).toEqual([path, 404]);
        expect(await other.locator('main').innerText()).not.toContain(WALDSEE.name);
      }
    }
  });

  it("refuses a clinic's login here, and keeps each session to its own pages", async () => {
    const clinic = await harness.newPage();
    await logIn(clinic, harness.clinics[0]!.username);
    expect(await clinic.getByRole('alert').innerText()).toContain('Dieser Zugang gehört keinem Krankenhaus.');
    expect((await clinic.context().cookies()).map((cookie) => cookie.name)).not.toContain('workspace_session');

    // The hospital's session is bound to /workspace: the inbox does not take it.
    const cookies = await page.context().cookies();
    expect(cookies.find((cookie) => cookie.name === 'workspace_session')).toMatchObject({ path: '/workspace', httpOnly: true, sameSite: 'Strict' });
    await page.goto(`${harness.baseUrl}/inbox/tasks`);
    expect(page.url()).toBe(`${harness.baseUrl}/inbox/login`);
  });

  it('creates a masked request to two clinics from the form: a refusal at its field first, then both clinics have it', async () => {
    await page.goto(url('/requests'));
    await Promise.all([page.waitForURL(url('/requests/new')), page.getByRole('link', { name: 'Neue Anfrage' }).click()]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Geschlecht *').selectOption('female');
    await page.getByLabel('Geburtsdatum *').fill('1948-03-02');
    await page.getByLabel('Postleitzahl *').fill('10115');
    await page.getByLabel('Wohnort *').fill('Berlin');
    await page.getByLabel('Gewünschtes Aufnahmedatum *').fill('2036-01-12');
    await page.getByLabel('Leistungsart *').selectOption('follow-up-rehabilitation');
    await page.getByLabel('Fachrichtung *').selectOption('orthopedics');
    await page.getByLabel('Hauptdiagnose: ICD-10-GM-Code *').fill('S7201');
    await page.getByLabel('Hauptdiagnose: Bezeichnung *').fill('Schenkelhalsfraktur');
    await page.getByLabel('Hinweise (z. B. Mobilität, Isolation, Besonderheiten)').fill('Mobil am Rollator');
    await Promise.all([page.waitForURL(url('/requests/new')), page.getByRole('button', { name: 'Kliniken für Fachrichtung und Datum anzeigen' }).click()]);
    await page.getByLabel(new RegExp(`^${WALDSEE.name}`)).check();
    await page.getByLabel(new RegExp(`^${BERGBLICK.name}`)).check();
    await page.getByRole('button', { name: 'Anfrage senden' }).click();

    // The code's form is refused at its field, in German; what was typed stays.
    const code = page.getByLabel('Hauptdiagnose: ICD-10-GM-Code *');
    expect(await code.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#f-diagnoses-0-code-error').innerText()).toBe('Bitte geben Sie einen ICD-10-GM-Code an, z. B. S72.01.');
    expect(await page.getByLabel('Wohnort *').inputValue()).toBe('Berlin');
    expect(await page.getByLabel(new RegExp(`^${WALDSEE.name}`)).isChecked()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);

    await code.fill('S72.01');
    await Promise.all([page.waitForURL(url('/requests?sent=1')), page.getByRole('button', { name: 'Anfrage senden' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toContain('Die Anfrage wurde gesendet.');
    const created: Record<string, string> = {};
    for (const clinic of harness.clinics) {
      const token = await harness.stack.login(clinic.username);
      const found = await waitFor(
        async () => {
          const list = await harness.stack.api<{ items: { id: string; mainDiagnosis?: { code: string }; patient: { dataLevel: string } }[] }>(
            'GET',
            '/api/v1/clinic/tasks?state=new',
            { token },
          );
          return list.body.items.find((item) => item.mainDiagnosis?.code === 'S72.01' && item.patient.dataLevel === 'masked');
        },
        { what: `the new request at ${clinic.name}` },
      );
      expect(found).toBeDefined();
      created[clinic.ik] = found!.id;
    }
    createdTasks = created;
    // Each clinic's people see it in their inbox.
    for (const clinic of harness.clinics) {
      const inbox = await harness.newPage();
      await harness.logIn(inbox, clinic);
      expect(await inbox.locator(`a[href="/inbox/tasks/${created[clinic.ik]!}"]`).count()).toBeGreaterThan(0);
      await inbox.context().close();
    }
  });

  it('selects the clinic that accepted, asking for the complete master data then: the clinic receives them, the other is cancelled', async () => {
    const [waldsee, bergblick] = [createdTasks[WALDSEE.ik]!, createdTasks[BERGBLICK.ik]!];
    const clinicToken = await harness.stack.login(harness.clinics[0]!.username);
    expect(
      (await harness.stack.api('POST', `/api/v1/clinic/tasks/${waldsee}/answer`, { token: clinicToken, body: { businessStatus: 'accepted' } })).status,
    ).toBe(200);
    await page.goto(url(`/requests/${waldsee}`));
    expect(await page.getByRole('link', { name: new RegExp(`^${BERGBLICK.name}.* auswählen$`) }).count()).toBe(0);
    await page.getByRole('link', { name: `${WALDSEE.name} (IK ${WALDSEE.ik}) auswählen` }).click();
    await page.waitForURL(/\/select\//);
    expect(await page.locator('main').innerText()).toContain('Diese Klinik erhält jetzt die vollständigen Patientendaten');
    expect(await seriousViolations(page)).toEqual([]);

    // Without the family name the selection is refused at its field.
    await page.getByRole('button', { name: 'Klinik verbindlich auswählen' }).click();
    expect(await page.getByLabel('Familienname *').getAttribute('aria-invalid')).toBe('true');
    await page.getByLabel('Familienname *').fill('Musterfrau');
    await page.getByLabel('Vornamen').fill('Erika Maria');
    await page.getByLabel('Straße und Hausnummer').fill('Hauptstraße 1');
    await page.getByLabel('Telefon').fill('+49 30 1234567');
    await page.getByLabel('Vollständiges Geburtsdatum (falls die Anfrage nur das Geburtsjahr enthielt)').fill('1948-03-03');
    await Promise.all([page.waitForURL(/\?selected=1$/), page.getByRole('button', { name: 'Klinik verbindlich auswählen' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toContain('Die Klinik ist ausgewählt');
    await page.locator(`tr[data-task-id="${waldsee}"] .status`, { hasText: 'Ausgewählt' }).waitFor({ timeout: 15_000 });
    await page.locator(`tr[data-task-id="${bergblick}"] .status`, { hasText: 'Storniert' }).waitFor({ timeout: 15_000 });

    const bundle = await harness.stack.api<{
      entry: { resource: { resourceType: string; birthDate?: string; name?: { family?: string; given?: string[] }[] } }[];
    }>('GET', `/api/v1/clinic/tasks/${waldsee}/bundle`, { token: clinicToken });
    const patient = bundle.body.entry.find((entry) => entry.resource.resourceType === 'Patient')?.resource;
    expect(patient?.name?.[0]).toMatchObject({ family: 'Musterfrau', given: ['Erika', 'Maria'] });
    expect(patient?.birthDate).toBe('1948-03-03');
  });

  it('withdraws the selection after a confirmation: the clinic is cancelled and the request open again', async () => {
    const waldsee = createdTasks[WALDSEE.ik]!;
    await page.goto(url(`/requests/${waldsee}`));
    await page.getByRole('link', { name: 'Auswahl zurücknehmen' }).click();
    await page.waitForURL(/\/withdraw$/);
    expect(await page.locator('main').innerText()).toContain('die Anfrage ist wieder offen');
    expect(await seriousViolations(page)).toEqual([]);
    await Promise.all([page.waitForURL(/\?withdrawn=1$/), page.getByRole('button', { name: 'Auswahl zurücknehmen' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toBe('Die Auswahl wurde zurückgenommen. Die Anfrage ist wieder offen.');
    await page.locator(`tr[data-task-id="${waldsee}"] .status`, { hasText: 'Storniert' }).waitFor({ timeout: 15_000 });
  });

  it('revokes a request after a confirmation: every clinic sees it cancelled, and nothing more can be sent for it', async () => {
    const { identifier } = await harness.sendRequest({ performerIks: [WALDSEE.ik, BERGBLICK.ik] });
    const task = (await harness.taskOf(identifier, WALDSEE.ik)).id;
    await page.goto(url(`/requests/${task}`));
    await page.getByRole('link', { name: 'Anfrage zurückziehen' }).click();
    await page.waitForURL(/\/revoke$/);
    expect(await seriousViolations(page)).toEqual([]);
    await Promise.all([page.waitForURL(/\?revoked=1$/), page.getByRole('button', { name: 'Anfrage endgültig zurückziehen' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toBe('Die Anfrage wurde zurückgezogen. Die Kliniken sehen sie als storniert.');
    await waitFor(
      async () =>
        (await harness.taskOf(identifier, BERGBLICK.ik)).status === 'cancelled' && (await harness.taskOf(identifier, WALDSEE.ik)).status === 'cancelled',
      {
        what: 'both Tasks cancelled',
      },
    );
    await page.reload();
    expect(await page.getByRole('link', { name: 'Anfrage zurückziehen' }).count()).toBe(0);
  });

  it('supplements a request after a query: the form filled with what was sent, the clinics answer the new version again', async () => {
    await page.goto(url(`/requests/${waldseeTask}`));
    await Promise.all([page.waitForURL(/\/supplement$/), page.getByRole('link', { name: 'Anfrage ergänzen' }).click()]);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Anfrage ergänzen');
    expect(await page.getByLabel('Hauptdiagnose: ICD-10-GM-Code *').inputValue()).not.toBe('');
    expect(await seriousViolations(page)).toEqual([]);
    const notes = page.getByLabel('Hinweise (z. B. Mobilität, Isolation, Besonderheiten)');
    await notes.fill(`${await notes.inputValue()}\n\nMobil am Rollator, Treppe mit Hilfe.`.trim());
    await Promise.all([page.waitForURL(/\?supplemented=1$/), page.getByRole('button', { name: 'Ergänzung senden' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toBe('Die Ergänzung wurde gesendet. Die Kliniken beantworten die Anfrage erneut.');
    await page.locator(`tr[data-task-id="${waldseeTask}"] .status`, { hasText: 'Angefragt' }).waitFor({ timeout: 15_000 });

    const token = await harness.stack.login(harness.clinics[0]!.username);
    const versions = await harness.stack.api<{
      items: { version: number; bundle: { entry: { resource: { resourceType: string; note?: { text: string }[] } }[] } }[];
    }>('GET', `/api/v1/clinic/tasks/${waldseeTask}/versions?_sort=-version&_count=1`, { token });
    const latest = versions.body.items[0]!;
    expect(latest.version).toBe(2);
    const request = latest.bundle.entry.find((entry) => entry.resource.resourceType === 'ServiceRequest')?.resource;
    expect(JSON.stringify(request?.note)).toContain('Mobil am Rollator, Treppe mit Hilfe.');
  });

  it('lets a colleague of the same hospital see the request and act on it, and names them in its history', async () => {
    const { sub } = JSON.parse(Buffer.from(harness.referrerToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string };
    const username = `ws-kollegin-${Date.now()}`;
    await harness.stack.createPerson(sub, username, 'Katrin Kollegin');
    const colleague = await harness.newPage();
    await logIn(colleague, username);
    await colleague.waitForURL(url('/requests'));
    expect(await colleague.locator(`table.requests tr[data-request="${firstTask}"]`).count()).toBe(1);
    await colleague.goto(url(`/requests/${waldseeTask}/supplement`));
    const notes = colleague.getByLabel('Hinweise (z. B. Mobilität, Isolation, Besonderheiten)');
    await notes.fill(`${await notes.inputValue()}\n\nRückruf bitte an Katrin Kollegin.`);
    await Promise.all([colleague.waitForURL(/\?supplemented=1$/), colleague.getByRole('button', { name: 'Ergänzung senden' }).click()]);

    await page.goto(url(`/requests/${waldseeTask}`));
    const history = await page.locator('#request-history').innerText();
    expect(history).toContain('Neue Version gesendet (Ergänzung, Auswahl, Rücknahme oder Rückzug) von Katrin Kollegin');
    expect(history).toContain(`Antwort der Klinik von ${WALDSEE.name} (IK ${WALDSEE.ik})`);
    expect(history).toContain('Anfrage gesendet');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it("keeps a draft for the hospital's people, sends the birth year alone, and finds the request by the internal case number the clinics never see", async () => {
    await page.goto(url('/requests/new'));
    await page.getByLabel('Geschlecht *').selectOption('male');
    await page.getByLabel('Geburtsdatum *').fill('1951-07-09');
    await page.getByLabel('Nur das Geburtsjahr senden (als 1. Januar des Jahres)').check();
    await page.getByLabel('Fachrichtung *').selectOption('orthopedics');
    await page.getByLabel('Gewünschtes Aufnahmedatum *').fill('2036-02-02');
    await page.getByLabel('Interne Fallnummer').fill('FALL-2026-0815');
    await Promise.all([page.waitForURL(/\/requests\/new\?draft=[0-9a-f-]{36}&saved=1$/), page.getByRole('button', { name: 'Als Entwurf speichern' }).click()]);
    expect(await page.locator('main').innerText()).toContain('Der Entwurf wurde gespeichert.');
    expect(await page.getByLabel('Geburtsdatum *').inputValue()).toBe('1951-07-09');
    expect(await seriousViolations(page)).toEqual([]);

    // Another hospital neither lists nor opens it.
    const other = await harness.newPage();
    await logIn(other, OTHER_HOSPITAL.username);
    await other.waitForURL(url('/requests'));
    expect((await other.goto(page.url().replace('&saved=1', '')))?.status()).toBe(404);
    expect(await other.locator('main').innerText()).toContain('Diesen Entwurf gibt es nicht mehr');
    await other.goto(url('/drafts'));
    expect(await other.locator('main').innerText()).toContain('Es gibt keine Entwürfe.');
    await other.context().close();

    // The drafts' list names it; opening it fills the form again.
    await Promise.all([page.waitForURL(url('/drafts')), page.getByRole('link', { name: 'Entwürfe' }).click()]);
    const draft = page.getByRole('link', { name: /geb\. 1951 · FALL-2026-0815$/ });
    expect(await draft.count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await Promise.all([page.waitForURL(/\/requests\/new\?draft=/), draft.click()]);
    expect(await page.getByLabel('Interne Fallnummer').inputValue()).toBe('FALL-2026-0815');
    expect(await page.getByLabel('Nur das Geburtsjahr senden (als 1. Januar des Jahres)').isChecked()).toBe(true);
    await page.getByLabel('Postleitzahl *').fill('14467');
    await page.getByLabel('Wohnort *').fill('Potsdam');
    await page.getByLabel('Leistungsart *').selectOption('follow-up-rehabilitation');
    await page.getByLabel('Hauptdiagnose: ICD-10-GM-Code *').fill('M17.1');
    await page.getByLabel('Hauptdiagnose: Bezeichnung *').fill('Gonarthrose');
    await Promise.all([page.waitForURL(/\/requests\/new$/), page.getByRole('button', { name: 'Kliniken für Fachrichtung und Datum anzeigen' }).click()]);
    await page.getByLabel(new RegExp(`^${WALDSEE.name}`)).check();
    await Promise.all([page.waitForURL(url('/requests?sent=1')), page.getByRole('button', { name: 'Anfrage senden' }).click()]);

    // Sent: the draft is gone; the clinic has the year alone and nothing of the internal case number.
    await page.goto(url('/drafts'));
    expect(await page.locator('main').innerText()).toContain('Es gibt keine Entwürfe.');
    const clinicToken = await harness.stack.login(harness.clinics[0]!.username);
    const task = await waitFor(
      async () => {
        const list = await harness.stack.api<{ items: { id: string; mainDiagnosis?: { code: string } }[] }>('GET', '/api/v1/clinic/tasks?state=new', {
          token: clinicToken,
        });
        return list.body.items.find((item) => item.mainDiagnosis?.code === 'M17.1');
      },
      { what: 'the request at Waldsee' },
    );
    const bundle = await harness.stack.api<{ entry: { resource: { resourceType: string; birthDate?: string } }[] }>(
      'GET',
      `/api/v1/clinic/tasks/${task.id}/bundle`,
      {
        token: clinicToken,
      },
    );
    expect(bundle.body.entry.find((entry) => entry.resource.resourceType === 'Patient')?.resource.birthDate).toBe('1951-01-01');
    expect(JSON.stringify(bundle.body)).not.toContain('FALL-2026-0815');

    // The list shows the number; the search finds the request whatever the letter case, by a post.
    await page.goto(url('/requests'));
    await page.locator(`tr[data-request="${task.id}"] .case-number`, { hasText: 'Interne Fallnr. FALL-2026-0815' }).waitFor({ timeout: 15_000 });
    await page.getByLabel('Nach interner Fallnummer suchen').fill('fall-2026-0815');
    await Promise.all([page.waitForURL(url('/requests/search')), page.getByRole('button', { name: 'Suchen' }).click()]);
    expect(await page.locator('main').innerText()).toContain('1 Anfrage mit der internen Fallnummer fall-2026-0815.');
    expect(await page.locator('table.requests tbody tr').count()).toBe(1);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Nach interner Fallnummer suchen').fill('FALL-0000');
    await Promise.all([page.waitForURL(url('/requests/search')), page.getByRole('button', { name: 'Suchen' }).click()]);
    expect(await page.locator('main').innerText()).toContain('Keine Anfrage hat die interne Fallnummer FALL-0000.');

    // The request's page shows it and changes it; a refused one stands at its field.
    await page.goto(url(`/requests/${task.id}`));
    // What was sent, read back: the year alone, the diagnosis; not the internal case number.
    const sent = await page.locator('#sent-request').innerText();
    expect(sent).toContain('01.01.1951');
    expect(sent).toContain('M17.1 Gonarthrose');
    expect(sent).not.toContain('FALL-2026');
    const own = page.getByRole('textbox', { name: 'Interne Fallnummer' });
    expect(await own.inputValue()).toBe('FALL-2026-0815');
    await own.fill('FALL#2');
    await page.getByRole('button', { name: 'Fallnummer speichern' }).click();
    expect(await page.getByRole('textbox', { name: 'Interne Fallnummer' }).getAttribute('aria-invalid')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('textbox', { name: 'Interne Fallnummer' }).fill('FALL-2026-0816');
    await Promise.all([page.waitForURL(/\?caseNumber=1$/), page.getByRole('button', { name: 'Fallnummer speichern' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toBe('Die interne Fallnummer wurde gespeichert.');
    expect(await page.getByRole('textbox', { name: 'Interne Fallnummer' }).inputValue()).toBe('FALL-2026-0816');

    // Another hospital's search finds nothing of it.
    const otherToken = await harness.stack.login(OTHER_HOSPITAL.username);
    const search = await harness.stack.api<{ items: unknown[] }>('POST', '/api/v1/referrer/case-numbers/_search', {
      token: otherToken,
      body: { caseNumber: 'FALL-2026-0816' },
    });
    expect(search.status).toBe(200);
    expect(search.body.items).toEqual([]);
  });

  (SCREENSHOTS ? it : it.skip)('writes the screenshots of docs/workspace/', async () => {
    const { identifier } = await harness.sendRequest({ performerIks: [WALDSEE.ik, BERGBLICK.ik] });
    const [waldsee, bergblick] = [(await harness.taskOf(identifier, WALDSEE.ik)).id, (await harness.taskOf(identifier, BERGBLICK.ik)).id];
    const answer = async (clinic: (typeof harness.clinics)[number], taskId: string, body: object) =>
      harness.stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: await harness.stack.login(clinic.username), body });
    await answer(harness.clinics[0]!, waldsee, { businessStatus: 'accepted', note: 'Aufnahme am Wunschtermin möglich.' });
    await answer(harness.clinics[1]!, bergblick, { businessStatus: 'query', note: 'Ist ein Einzelzimmer nötig?' });
    mkdirSync(SCREENSHOTS!, { recursive: true });
    const shots = await harness.newPage({ width: 1280, height: 800 });
    await logIn(shots, harness.referrer);
    await shots.waitForURL(url('/requests'));
    await shots.screenshot({ path: join(SCREENSHOTS!, 'workspace-list.png') });
    await shots.goto(url(`/requests/${waldsee}`));
    await shots.screenshot({ path: join(SCREENSHOTS!, 'workspace-request.png'), fullPage: true });
    await shots.goto(url('/requests/new'));
    await shots.screenshot({ path: join(SCREENSHOTS!, 'workspace-new-request.png'), fullPage: true });
  });
});
