import type { Bundle, ServiceRequest } from '@medplum/fhirtypes';
import type { Page } from 'playwright-core';
import { DEFAULT_PROFILE_BASE } from '@bedrequest/fhir-model';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { waitFor, WebhookReceiver } from '@bedrequest/testing';
import { berlinLocal } from '../../../apps/web/src/workspace/berlin-time';
import { describeInChromium, FHIR_BASE, REFERRER_IK, startInboxHarness, type InboxHarness, seriousViolations } from '../inbox/inbox-harness';

/**
 * Answer deadlines in Chromium against the whole stack (docs/workspace.md, "Antwortfristen" and
 * "Weitere Kliniken anfragen"; docs/inbox.md, "Antwortfristen"), with intake marking overdue Tasks
 * every second: a request to two clinics with a deadline a few seconds ahead; one clinic answers in
 * time, the other does not. The overdue clinic is marked on the hospital's pages (first) and in its
 * own inbox, found by the Task search's `overdue`, and announced by an AdmissionOverdue webhook of
 * its own sequence. The hospital then asks a third clinic in one step; the clinics asked before keep
 * their answers.
 */
const WALDSEE = { ik: '513300041', name: 'Reha-Klinik Am Waldsee' };
const BERGBLICK = { ik: '513300042', name: 'Fachklinik Bergblick' };
const SEEBLICK = { ik: '513300043', name: 'Rehazentrum Seeblick' };
const DEADLINE_URL = `${DEFAULT_PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`;

describeInChromium("the hospital's workspace: answer deadlines", () => {
  let harness: InboxHarness;
  let page: Page;
  const overdueHooks = new WebhookReceiver();
  let identifier: string;
  let waldseeTask: string;
  let bergblickTask: string;
  /** The request the form made (to Seeblick), and its identifier. */
  let formTask: string;
  let formIdentifier: string;

  const url = (path: string) => `${harness.baseUrl}/workspace${path}`;

  beforeAll(async () => {
    harness = await startInboxHarness([WALDSEE, BERGBLICK, SEEBLICK], { OVERDUE_SWEEP_SECONDS: '1' });
    const subscribed = await harness.stack.api<{ secret: string }>('POST', '/api/v1/subscriptions', {
      token: harness.referrerToken,
      body: { eventType: 'AdmissionOverdue', callbackUrl: await overdueHooks.start() },
    });
    expect(subscribed.status).toBe(201);
    overdueHooks.secret = subscribed.body.secret;

    // The deadline a few seconds ahead: long enough for the bundle to be taken, short for the test.
    const bundle = admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: REFERRER_IK, performerIks: [WALDSEE.ik, BERGBLICK.ik] }) as Bundle;
    const request = bundle.entry?.find((entry) => entry.resource?.resourceType === 'ServiceRequest')?.resource as ServiceRequest;
    request.extension = [
      ...(request.extension ?? []),
      { url: DEADLINE_URL, valueDateTime: new Date(Date.now() + 8_000).toISOString().replace(/\.\d{3}Z$/, '+00:00') },
    ];
    identifier = request.identifier?.[0]?.value ?? '';
    const sent = await harness.stack.api('POST', '/api/v2/fhir/Bundle', { token: harness.referrerToken, body: bundle });
    expect(sent.status).toBe(202);
    [waldseeTask, bergblickTask] = [(await harness.taskOf(identifier, WALDSEE.ik)).id, (await harness.taskOf(identifier, BERGBLICK.ik)).id];
    const bergblick = await harness.stack.login(harness.clinics[1]!.username);
    const answered = await harness.stack.api('POST', `/api/v1/clinic/tasks/${bergblickTask}/answer`, {
      token: bergblick,
      body: { businessStatus: 'accepted' },
    });
    expect(answered.status).toBe(200);

    page = await harness.newPage();
    await harness.logInToWorkspace(page, harness.referrer);
    await page.waitForURL(url('/requests'));
  }, 240_000);

  afterAll(async () => {
    await overdueHooks.stop();
    await harness?.stop();
  });

  it('marks the clinic that let its deadline pass, for the Task search, a webhook of its own, the hospital and the clinic', async () => {
    const search = (overdue: boolean) =>
      harness.stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}&overdue=${overdue}`, {
        token: harness.referrerToken,
      });
    const overdue = await waitFor(
      async () => {
        const found = (await search(true)).body.entry ?? [];
        return found.length ? found : undefined;
      },
      { what: "Waldsee's Task marked overdue", timeoutMs: 30_000 },
    );
    expect(overdue.map((entry) => entry.resource.id)).toEqual([waldseeTask]);
    expect(((await search(false)).body.entry ?? []).map((entry) => entry.resource.id)).toEqual([bergblickTask]);

    // One AdmissionOverdue event, first of its own sequence, signed with its subscription's secret.
    const hook = await waitFor(async () => overdueHooks.received[0], { what: 'the AdmissionOverdue webhook' });
    expect(hook.verified).toBe(true);
    expect(hook.body).toMatchObject({ type: 'AdmissionOverdue', sequence: 1, data: { id: waldseeTask } });
    expect(harness.webhooks.received.every((each) => each.body.type === 'AdmissionResponse')).toBe(true);

    // The hospital's request page: the overdue clinic first, marked, and the way on.
    await page.goto(url(`/requests/${waldseeTask}`));
    const rows = page.locator('#request-clinics tbody tr');
    expect(await rows.first().getAttribute('data-task-id')).toBe(waldseeTask);
    expect(await rows.first().locator('.overdue').innerText()).toContain('Frist überschritten');
    expect(await page.locator('#request-asks').innerText()).toContain(`${WALDSEE.name} (IK ${WALDSEE.ik}) hat nicht innerhalb der Frist geantwortet.`);
    expect(await seriousViolations(page)).toEqual([]);
    await page.goto(url('/requests'));
    expect(await page.locator('table.requests .overdue').count()).toBe(1);

    // The clinic's inbox: the list's column and the request's page.
    const inbox = await harness.newPage();
    await harness.logIn(inbox, harness.clinics[0]!);
    expect(await inbox.locator(`tr[data-task-id="${waldseeTask}"] .overdue`).innerText()).toBe('Frist überschritten');
    await inbox.goto(`${harness.baseUrl}/inbox/tasks/${waldseeTask}`);
    expect(await inbox.locator('p.meta .overdue').innerText()).toContain('Frist überschritten: Antwort war erbeten bis');
    expect(await seriousViolations(inbox)).toEqual([]);
    await inbox.context().close();
  });

  it("takes the deadline from the form in the hospital's time, and says what the party's default is when left empty", async () => {
    await page.goto(url('/requests/new'));
    expect(await page.locator('#deadline-hint').innerText()).toContain('Leer lassen für die Voreinstellung Ihres Krankenhauses: 2 Arbeitstage nach dem Senden');
    await page.getByLabel('Geschlecht *').selectOption('female');
    await page.getByLabel('Geburtsdatum *').fill('1950-05-05');
    await page.getByLabel('Postleitzahl *').fill('10115');
    await page.getByLabel('Wohnort *').fill('Berlin');
    await page.getByLabel('Gewünschtes Aufnahmedatum *').fill('2036-03-02');
    const day = new Intl.DateTimeFormat('sv-SE', { timeZone: 'Europe/Berlin' }).format(Date.now() + 30 * 86_400_000);
    await page.getByLabel('Antworten benötigt bis').fill(`${day}T16:00`);
    await page.getByLabel('Leistungsart *').selectOption('follow-up-rehabilitation');
    await page.getByLabel('Fachrichtung *').selectOption('orthopedics');
    await page.getByLabel('Hauptdiagnose: ICD-10-GM-Code *').fill('M16.1');
    await page.getByLabel('Hauptdiagnose: Bezeichnung *').fill('Koxarthrose');
    await Promise.all([page.waitForURL(/\/requests\/new$/), page.getByRole('button', { name: 'Kliniken für Fachrichtung und Datum anzeigen' }).click()]);
    await page.getByLabel(new RegExp(`^${SEEBLICK.name}`)).check();
    expect(await seriousViolations(page)).toEqual([]);
    await Promise.all([page.waitForURL(url('/requests?sent=1')), page.getByRole('button', { name: 'Anfrage senden' }).click()]);
    const token = await harness.stack.login(harness.clinics[2]!.username);
    const task = await waitFor(
      async () => {
        const list = await harness.stack.api<{ items: { id: string; deadline?: string; mainDiagnosis?: { code: string } }[] }>(
          'GET',
          '/api/v1/clinic/tasks?state=new',
          { token },
        );
        return list.body.items.find((item) => item.mainDiagnosis?.code === 'M16.1');
      },
      { what: "the form's request at Seeblick" },
    );
    // 16:00 on that day in Berlin, whatever its offset.
    expect(berlinLocal(task.deadline)).toBe(`${day}T16:00`);
    formTask = task.id;
    const read = await harness.stack.api<{ basedOn: { identifier: { value: string } }[] }>('GET', `/api/v2/fhir/Task/${task.id}`, {
      token: harness.referrerToken,
    });
    formIdentifier = read.body.basedOn[0]!.identifier.value;
  });

  it('asks a further clinic in one step: the clinic asked before keeps its Task and answer', async () => {
    const seeblick = await harness.stack.login(harness.clinics[2]!.username);
    const accepted = await harness.stack.api('POST', `/api/v1/clinic/tasks/${formTask}/answer`, { token: seeblick, body: { businessStatus: 'accepted' } });
    expect(accepted.status).toBe(200);
    await page.goto(url(`/requests/${formTask}`));
    await Promise.all([page.waitForURL(/\/more-clinics$/), page.getByRole('link', { name: 'Weitere Kliniken anfragen' }).first().click()]);
    expect(await page.locator('main').innerText()).toContain(`${SEEBLICK.name} (IK ${SEEBLICK.ik})`);
    expect(await page.getByLabel(new RegExp(`^${SEEBLICK.name}`)).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    // Nothing ticked: refused, nothing sent.
    await page.getByRole('button', { name: 'Ausgewählte Kliniken anfragen' }).click();
    expect(await page.locator('.error-summary').innerText()).toContain('Bitte wählen Sie mindestens eine weitere Klinik.');

    await page.getByLabel(new RegExp(`^${WALDSEE.name}`)).check();
    await Promise.all([page.waitForURL(/\?moreClinics=1$/), page.getByRole('button', { name: 'Ausgewählte Kliniken anfragen' }).click()]);
    type Read = { id: string; status: string; owner: { identifier: { value: string } }; restriction?: { period: { end: string } } };
    const tasks = await waitFor(
      async () => {
        const based = await harness.stack.api<{ entry?: { resource: Read }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(formIdentifier)}`, {
          token: harness.referrerToken,
        });
        const all = based.body.entry?.map((entry) => entry.resource) ?? [];
        return all.length === 2 ? all : undefined;
      },
      { what: 'the Task of the clinic asked now' },
    );
    const [asked, before] = [tasks.find((task) => task.owner.identifier.value === WALDSEE.ik), tasks.find((task) => task.id === formTask)];
    expect(asked?.status).toBe('requested');
    expect(before?.status).toBe('accepted');
    expect(asked?.restriction?.period.end).toBe(before?.restriction?.period.end);
    await page.locator(`tr[data-task-id="${asked?.id}"]`).waitFor({ timeout: 15_000 });
  });

  it("sets the hospital's default deadline on Einstellungen, which the form then states", async () => {
    await page.goto(url('/requests'));
    await Promise.all([page.waitForURL(url('/settings')), page.getByRole('link', { name: 'Einstellungen' }).click()]);
    expect(await page.getByLabel('Arbeitstage bis zur Antwort').inputValue()).toBe('2');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Arbeitstage bis zur Antwort').selectOption('3');
    await page.getByLabel('Feiertage').selectOption('DE-BY');
    await Promise.all([page.waitForURL(url('/settings?saved=1')), page.getByRole('button', { name: 'Speichern' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toBe('Die Einstellungen wurden gespeichert. Sie gelten für neue Anfragen.');
    const read = await harness.stack.api<{ answerDeadline: object }>('GET', '/api/v1/referrer/settings', { token: harness.referrerToken });
    expect(read.body).toEqual({ answerDeadline: { workingDays: 3, holidays: 'DE-BY' } });
    await page.goto(url('/requests/new'));
    expect(await page.locator('#deadline-hint').innerText()).toContain('3 Arbeitstage nach dem Senden, ohne Wochenenden und Feiertage in Bayern');
  });
});
