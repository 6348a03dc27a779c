import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { documentBundle } from '@bedrequest/fhir-model/testing';
import { describeInChromium, FHIR_BASE, startInboxHarness, type InboxHarness } from './inbox-harness';

/**
 * A clinic's path through the inbox (docs/inbox.md), in Chromium: log in, see a request arrive
 * without a reload, open it, ask a question (the referrer's webhook arrives), see the supplement's
 * changes highlighted, accept, see the complete patient after selection; a cancelled Task offers no
 * answer.
 */
const WALDSEE = { ik: '513100001', name: 'Reha-Klinik Am Waldsee' };
const BERGBLICK = { ik: '513100002', name: 'Fachklinik Bergblick' };

describeInChromium('the clinic inbox, end to end in Chromium', () => {
  let inbox: InboxHarness;
  let page: Page;

  beforeAll(async () => {
    inbox = await startInboxHarness([WALDSEE, BERGBLICK]);
    page = await inbox.newPage();
  }, 180_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  const clinic = () => inbox.clinics[0]!;
  const rowOf = (taskId: string) => page.locator(`tr[data-task-id="${taskId}"]`);

  it('refuses a wrong password with a German message and logs in with the right one', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/`);
    expect(page.url()).toBe(`${inbox.baseUrl}/inbox/login`);
    await page.getByLabel('Benutzername').fill(clinic().username);
    await page.getByLabel('Passwort').fill('wrong password');
    await page.getByRole('button', { name: 'Anmelden' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Benutzername oder Passwort ist falsch.');

    await inbox.logIn(page, clinic());
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Anfragen');
    await expect(page.locator('.clinic').textContent()).resolves.toBe(`${WALDSEE.name} (IK ${WALDSEE.ik})`);
  });

  it('shows a request posted by a referrer without a reload, marked new, with its row content', async () => {
    await page.goto(`${inbox.baseUrl}/inbox/tasks`);
    const navigations: string[] = [];
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    const { identifier } = await inbox.sendRequest({ occurrenceDate: '2026-12-07' });
    const task = await inbox.taskOf(identifier, WALDSEE.ik);

    await rowOf(task.id).waitFor({ timeout: 15_000 });
    expect(navigations).toEqual([]);
    const row = await rowOf(task.id).innerText();
    expect(row).toContain('Neu');
    expect(row).toContain('weiblich');
    expect(row).toMatch(/\d+ Jahre/);
    expect(row).toContain('Orthopädie (2300)');
    expect(row).not.toContain('Fachabteilung');
    expect(row).toContain('07.12.2026');
    expect(row).toContain('S72.01 Schenkelhalsfraktur: Intrakapsulär');
    expect(row).toContain('Akutklinik Mitte');
    expect(row).toContain('Neu – Antwort ausstehend');
    await expect(rowOf(task.id).getAttribute('class')).resolves.toContain('is-new');
    await expect(page.locator('[data-count="new"]').textContent()).resolves.toBe('1');
    await expect(page.locator('#live-status').textContent()).resolves.toBe('1 neue oder geänderte Anfrage.');
  });

  it('opens a request, asks a query with a note after a confirmation, and the referrer gets the webhook', async () => {
    const { identifier } = await inbox.sendRequest({ notes: ['Einzelzimmer erwünscht'] });
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    const main = page.locator('main');
    await expect(main.innerText()).resolves.toContain('pseudonymisiert');
    expect(await main.innerText()).toContain('S72.01 Schenkelhalsfraktur: Intrakapsulär');
    expect(await main.innerText()).toContain('72,5 kg');
    expect(await main.innerText()).toContain('AOK Nordost');
    expect(await main.innerText()).toContain('Einzelzimmer erwünscht');
    expect(await main.innerText()).not.toContain('Musterfrau');

    // A query needs a note.
    await page.getByLabel('Rückfrage').check();
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await expect(page.locator('#answer-errors').innerText()).resolves.toContain('Bitte schreiben Sie eine Notiz');
    await page.getByLabel('Rückfrage').check();
    await page.getByLabel('Notiz an den Zuweiser').fill('Bitte aktuellen Röntgenbefund nachreichen.');
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Antwort bestätigen');
    // "Antwort ändern" goes back to the form with the answer kept; nothing was sent.
    await page.getByRole('button', { name: 'Antwort ändern' }).click();
    await expect(page.getByLabel('Rückfrage').isChecked()).resolves.toBe(true);
    await expect(page.getByLabel('Notiz an den Zuweiser').inputValue()).resolves.toBe('Bitte aktuellen Röntgenbefund nachreichen.');
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    // Still nothing sent: an answer is stored (and only then is its webhook sent) before the page
    // after it is rendered, and the Task has none. Not its webhook's absence, which could come later.
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Antwort bestätigen');
    expect(await inbox.taskOf(identifier, WALDSEE.ik)).toEqual({ id: task.id, status: 'requested' });
    await page.getByRole('button', { name: 'Antwort jetzt senden' }).click();
    await expect(page.getByRole('status').first().innerText()).resolves.toContain('Ihre Antwort „Rückfrage“ wurde gesendet.');

    const webhook = await waitFor(() => inbox.webhooks.received.find((candidate) => taskIdOf(candidate.body.data) === task.id), {
      timeoutMs: 15_000,
      what: 'the webhook',
    });
    expect(webhook.verified).toBe(true);
    expect(webhook.body.data).toMatchObject({
      status: 'on-hold',
      businessStatus: { coding: [{ code: 'query' }] },
      note: [{ text: 'Bitte aktuellen Röntgenbefund nachreichen.' }],
    });
  });

  it('highlights what a supplement changed, then accepts; after the selection the full name shows', async () => {
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await inbox.sendRequest({ requestIdentifier: identifier, notes: ['Einzelzimmer erwünscht'] });
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    await inbox.stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, {
      token: await inbox.stack.login(clinic().username),
      body: { businessStatus: 'query', note: 'Röntgenbefund?' },
    });

    await inbox.sendRequest({ requestIdentifier: identifier, notes: ['Einzelzimmer erwünscht', 'Röntgenbefund vom 20.11. liegt bei'] });
    await waitFor(async () => (await inbox.taskOf(identifier, WALDSEE.ik)).status === 'requested', { what: 'the supplement' });
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    const changed = page.locator('.field-row.is-changed');
    await expect(changed.count()).resolves.toBe(1);
    await expect(changed.innerText()).resolves.toContain('Röntgenbefund vom 20.11. liegt bei');
    await expect(changed.locator('mark').innerText()).resolves.toBe('geändert');
    const history = await page.locator('.history').innerText();
    expect(history).toContain('Version 2');
    expect(history).toContain('Hinweise');
    expect(history).toContain('Erstanfrage');

    await page.getByLabel('Zusage').check();
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await page.getByRole('button', { name: 'Antwort jetzt senden' }).click();
    await expect(page.getByRole('status').first().innerText()).resolves.toContain('Ihre Antwort „Zusage“ wurde gesendet.');
    expect((await inbox.taskOf(identifier, WALDSEE.ik)).businessStatus).toBe('accepted');

    await inbox.sendRequest({
      requestIdentifier: identifier,
      intent: 'order',
      orderDetail: 'selected-provider',
      performerIks: [WALDSEE.ik],
      patient: 'complete',
    });
    await waitFor(async () => (await inbox.taskOf(identifier, WALDSEE.ik)).status === 'in-progress', { what: 'the selection' });
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    await expect(page.locator('.selected .patient-name').innerText()).resolves.toBe('Erika Musterfrau');
    expect(await page.locator('.selected').innerText()).toContain('Invalidenstraße 117');
    await expect(page.locator('.meta .status').innerText()).resolves.toBe('Ausgewählt');
  });

  it('says a cancelled Task is cancelled and offers no answer; the API refusal of a late answer reads in German', async () => {
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await inbox.sendRequest({ requestIdentifier: identifier });
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    await page.getByLabel('Zusage').check();
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();

    // Meanwhile the referrer revokes the request: the confirmation meets a 409.
    await inbox.sendRequest({ requestIdentifier: identifier, status: 'revoked' });
    await waitFor(async () => (await inbox.taskOf(identifier, WALDSEE.ik)).status === 'cancelled', { what: 'the cancellation' });
    await page.getByRole('button', { name: 'Antwort jetzt senden' }).click();
    await expect(page.locator('.notice-error').first().innerText()).resolves.toContain(
      'Die Anfrage wurde inzwischen storniert oder vom Zuweiser zurückgezogen.',
    );

    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    await expect(page.locator('.notice-warning').innerText()).resolves.toContain('Eine Antwort ist nicht mehr möglich.');
    await expect(page.locator('#answer-form').count()).resolves.toBe(0);
    await expect(page.locator('.meta .status').innerText()).resolves.toBe('Storniert');
  });

  it('lists the documents and opens and downloads each attachment', async () => {
    const { identifier } = await inbox.sendRequest();
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    const documents = documentBundle({
      requestIdentifier: identifier,
      documents: [{ contentType: 'text/plain', text: 'Entlassbrief: mobil an Unterarmgehstützen.', title: 'Arztbrief' }],
    });
    expect((await inbox.stack.api('POST', '/api/v2/fhir/Bundle', { token: inbox.referrerToken, body: documents })).status).toBe(202);
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    await expect(page.locator('.documents').innerText()).resolves.toContain('Arztbrief');
    // An attachment's address is its document's position and its own: the download reads that document alone.
    await expect(page.locator('.documents a').first().getAttribute('href')).resolves.toBe(`/inbox/tasks/${task.id}/documents/0/attachments/0`);

    const opened = await page.request.get(`${inbox.baseUrl}/inbox/tasks/${task.id}/documents/0/attachments/0`);
    expect(opened.status()).toBe(200);
    expect(opened.headers()['content-type']).toBe('text/plain; charset=utf-8');
    expect(opened.headers()['content-disposition']).toMatch(/^inline; filename="?Arztbrief"?$/);
    expect(opened.headers()['cache-control']).toBe('no-store');
    expect(await opened.text()).toBe('Entlassbrief: mobil an Unterarmgehstützen.');
    const download = await page.request.get(`${inbox.baseUrl}/inbox/tasks/${task.id}/documents/0/attachments/0?download=1`);
    expect(download.headers()['content-disposition']).toMatch(/^attachment; filename="?Arztbrief"?$/);
    expect((await page.request.get(`${inbox.baseUrl}/inbox/tasks/${task.id}/documents/0/attachments/1`)).status()).toBe(404);
    expect((await page.request.get(`${inbox.baseUrl}/inbox/tasks/${task.id}/documents/1/attachments/0`)).status()).toBe(404);
  });
});

function taskIdOf(data: unknown): string | undefined {
  return typeof data === 'object' && data !== null ? (data as { id?: string }).id : undefined;
}
