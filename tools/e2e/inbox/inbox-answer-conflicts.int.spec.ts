import { randomUUID } from 'node:crypto';
import type { Task } from '@medplum/fhirtypes';
import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { describeInChromium, startInboxHarness, type InboxClinic, type InboxHarness } from './inbox-harness';

/**
 * An answer is given on the request as the person saw it (docs/inbox.md, "Antworten"), in Chromium
 * against the whole stack: two people of one clinic in two browsers, and a referrer changing the
 * desired date while a page is open. The answer that would overwrite a colleague's, or accept an
 * older version, is not stored; the page says what changed and lets the person answer again.
 */
const WALDSEE = { ik: '513300011', name: 'Reha-Klinik Am Waldsee' };

describeInChromium('two people answering one request in the inbox', () => {
  let inbox: InboxHarness;
  let jana: InboxClinic;
  let tom: InboxClinic;

  beforeAll(async () => {
    inbox = await startInboxHarness([WALDSEE]);
    const party = await inbox.stack.createParty('clinic', WALDSEE.name, [WALDSEE.ik]);
    const suffix = randomUUID().slice(0, 8);
    jana = { ...WALDSEE, username: `jana-${suffix}` };
    tom = { ...WALDSEE, username: `tom-${suffix}` };
    await inbox.stack.createPerson(party, jana.username, 'Jana Schulz');
    await inbox.stack.createPerson(party, tom.username, 'Tom Becker');
  }, 180_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  const signedIn = async (person: InboxClinic): Promise<Page> => {
    const page = await inbox.newPage();
    await inbox.logIn(page, person);
    return page;
  };
  /** Chooses an answer on the request's page and goes on to its confirmation. */
  const toConfirmation = async (page: Page, taskId: string, answer: string, note = '') => {
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${taskId}`);
    await page.getByLabel(answer, { exact: true }).check();
    await page.getByLabel('Notiz an den Zuweiser').fill(note);
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await page.getByRole('heading', { name: 'Antwort bestätigen' }).waitFor();
  };
  const confirmed = (page: Page, field: string) => page.locator(`[data-field="${field}"] dd`).innerText();
  const send = (page: Page) => page.getByRole('button', { name: 'Antwort jetzt senden' }).click();
  /** The notice of an answer refused as out of date, its white space collapsed (a changed field's values are spans on lines of their own). */
  const staleNotice = async (page: Page) => (await page.locator('#answer-stale').innerText()).replace(/\s+/g, ' ');
  const referrersTask = async (taskId: string) => (await inbox.stack.api<Task>('GET', `/api/v2/fhir/Task/${taskId}`, { token: inbox.referrerToken })).body;

  it("does not store the answer of one whose colleague answered meanwhile, and shows the colleague's answer", async () => {
    const { identifier } = await inbox.sendRequest();
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    const [janasPage, tomsPage] = [await signedIn(jana), await signedIn(tom)];

    await toConfirmation(janasPage, task.id, 'Zusage');
    expect(await confirmed(janasPage, 'request.admission')).toBe('01.12.2026');
    expect(await confirmed(janasPage, 'answered-version')).toMatch(/^Erstanfrage vom /);

    await toConfirmation(tomsPage, task.id, 'Absage', 'Kein Bett frei');
    await send(tomsPage);
    await expect(tomsPage.getByRole('status').first().innerText()).resolves.toContain('Ihre Antwort „Absage“ wurde gesendet.');

    await send(janasPage);
    const notice = await staleNotice(janasPage);
    expect(notice).toContain('Ihre Antwort wurde nicht gespeichert: Die Anfrage hat sich geändert');
    expect(notice).toContain('Aktuelle Antwort Ihrer Klinik: „Absage“ von Tom Becker');
    const stored = await referrersTask(task.id);
    expect([stored.businessStatus?.coding?.[0]?.code, stored.note?.map((note) => note.text)]).toEqual(['declined', ['Kein Bett frei']]);

    // Jana answers again, on the request as it is now: her answer keeps what she chose.
    await expect(janasPage.getByLabel('Zusage', { exact: true }).isChecked()).resolves.toBe(true);
    await janasPage.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await send(janasPage);
    await expect(janasPage.getByRole('status').first().innerText()).resolves.toContain('Ihre Antwort „Zusage“ wurde gesendet.');
    expect((await referrersTask(task.id)).businessStatus?.coding?.[0]?.code).toBe('accepted');
  });

  it('does not accept a request for a date the referrer has moved meanwhile, and shows the new date', async () => {
    const { identifier } = await inbox.sendRequest({ occurrenceDate: '2027-01-11' });
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    const janasPage = await signedIn(jana);

    await toConfirmation(janasPage, task.id, 'Zusage');
    expect(await confirmed(janasPage, 'request.admission')).toBe('11.01.2027');

    await inbox.sendRequest({ requestIdentifier: identifier, occurrenceDate: '2027-02-01' });
    const clinicToken = await inbox.stack.login(jana.username);
    await waitFor(
      async () => (await inbox.stack.api<{ total: number }>('GET', `/api/v1/clinic/tasks/${task.id}/versions`, { token: clinicToken })).body.total === 2,
      { what: "the referrer's second version" },
    );

    await send(janasPage);
    const notice = await staleNotice(janasPage);
    expect(notice).toContain('Der Zuweiser hat die Anfrage ergänzt: Version 1 → Version 2.');
    expect(notice).toMatch(/Gewünschtes Aufnahmedatum: (vorher: )?11\.01\.2027 → (jetzt: )?01\.02\.2027/);
    expect((await referrersTask(task.id)).businessStatus).toBeUndefined();

    await janasPage.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    expect(await confirmed(janasPage, 'request.admission')).toBe('01.02.2027');
    expect(await confirmed(janasPage, 'answered-version')).toMatch(/^Version 2 vom /);
    await send(janasPage);
    await expect(janasPage.getByRole('status').first().innerText()).resolves.toContain('Ihre Antwort „Zusage“ wurde gesendet.');
  });
});
