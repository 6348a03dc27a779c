import { randomUUID } from 'node:crypto';
import type { Annotation, Task } from '@medplum/fhirtypes';
import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { describeInChromium, startInboxHarness, type InboxClinic, type InboxHarness } from './inbox-harness';

/**
 * Who of a clinic gave each answer, in Chromium against the whole stack (docs/inbox.md, "A
 * request"): a clinic party of two people answers through the inbox and the API, each note names
 * its person ("von <Name>", escaped as any text), the service's automatic decline says
 * "automatisch", and the referrer's Task and webhook name nobody of the clinic.
 */
const WALDSEE = { ik: '513300001', name: 'Reha-Klinik Am Waldsee' };
// Offers no orthopaedics, which the fixture's requests ask for: intake declines for it at once.
const SEEBLICK = { ik: '513300002', name: 'Fachklinik Seeblick', departments: ['0300'] };
const JANA_NAME = 'Jana <b>Schulz</b>';

describeInChromium('who of the clinic answered, in the inbox', () => {
  let inbox: InboxHarness;
  let jana: InboxClinic;
  let tom: InboxClinic;

  beforeAll(async () => {
    inbox = await startInboxHarness([WALDSEE, SEEBLICK]);
    // A party of two people for Waldsee beside the harness's user of one (docs/parties.md).
    const party = await inbox.stack.createParty('clinic', WALDSEE.name, [WALDSEE.ik]);
    const suffix = randomUUID().slice(0, 8);
    jana = { ...WALDSEE, username: `jana-${suffix}` };
    tom = { ...WALDSEE, username: `tom-${suffix}` };
    await inbox.stack.createPerson(party, jana.username, JANA_NAME);
    await inbox.stack.createPerson(party, tom.username, 'Tom Becker');
  }, 180_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  /** The answers on the page, newest first, each as who gave it and the note under it. */
  const notesOn = (page: Page) =>
    page
      .locator('.answer-history > li')
      .evaluateAll((items) =>
        items.map((item) => `${item.querySelector('.note-author')?.textContent ?? ''}: ${item.querySelector('.answer-note')?.textContent ?? ''}`),
      );

  it('names by each answer of the clinic the person who gave it, the name as text, and nobody to the referrer', async () => {
    const { identifier } = await inbox.sendRequest();
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    const asked = await inbox.stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, {
      token: await inbox.stack.login(tom.username),
      body: { businessStatus: 'query', note: 'Röntgenbefund?' },
    });
    expect(asked.status).toBe(200);

    const page = await inbox.newPage();
    await inbox.logIn(page, jana);
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    await page.getByLabel('Zusage').check();
    await page.getByLabel('Notiz an den Zuweiser').fill('Aufnahme ab Montag');
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await page.getByRole('button', { name: 'Antwort jetzt senden' }).click();
    await expect(page.getByRole('status').first().innerText()).resolves.toContain('Ihre Antwort „Zusage“ wurde gesendet.');

    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    expect(await notesOn(page)).toEqual([`von ${JANA_NAME}: Aufnahme ab Montag`, 'von Tom Becker: Röntgenbefund?']);
    await expect(page.locator('.answer-history b').count()).resolves.toBe(0);

    // The referrer reads the notes without the clinic's people, and so do its webhooks.
    const seen = await inbox.stack.api<Task>('GET', `/api/v2/fhir/Task/${task.id}`, { token: inbox.referrerToken });
    expect(seen.body.note?.map((note: Annotation) => Object.keys(note).sort())).toEqual([
      ['text', 'time'],
      ['text', 'time'],
    ]);
    await waitFor(() => inbox.webhooks.received.filter((webhook) => (webhook.body.data as Task).id === task.id).length === 2, {
      timeoutMs: 15_000,
      what: "both answers' webhooks",
    });
    const webhooks = JSON.stringify(inbox.webhooks.received.filter((webhook) => (webhook.body.data as Task).id === task.id));
    expect(webhooks).not.toMatch(/authorReference|Tom Becker|Jana/);
  });

  it('says "automatisch" by the answer the service gave on the clinic\'s behalf', async () => {
    const { identifier } = await inbox.sendRequest();
    const task = await inbox.taskOf(identifier, SEEBLICK.ik);
    expect(task.businessStatus).toBe('declined');

    const page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[1]!);
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);

    const [note] = await notesOn(page);
    expect(note).toMatch(/^automatisch: /);
  });
});
