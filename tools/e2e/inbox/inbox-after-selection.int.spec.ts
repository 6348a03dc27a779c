import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { describeInChromium, FHIR_BASE, REFERRER_IK, startInboxHarness, type InboxHarness, seriousViolations } from './inbox-harness';

/**
 * What a selected clinic does on the request's page (docs/inbox.md, "Nach der Auswahl";
 * docs/decisions.md, "Clinics answer"), in Chromium against the whole stack: no answer form, whose
 * "Absage" would be stored and change nothing, but the withdrawal of its acceptance with a reason,
 * confirmed on a page of its own; a withdrawal on a Task a colleague answered meanwhile is refused and
 * the page says what changed; the withdrawal lifts the selection (the Task rejected, nothing left for
 * the referrer to withdraw). axe-core, keyboard alone and 200 % zoom.
 */
const WALDSEE = { ik: '513300031', name: 'Reha-Klinik Am Waldsee', departments: ['2300', '0300'] };
const REASON = 'Das zugesagte Bett ist durch einen Wasserschaden nicht belegbar.';
/** With INBOX_SCREENSHOTS=<dir>, docs/inbox/inbox-withdraw.png is written there too. */
const SCREENSHOTS = process.env.INBOX_SCREENSHOTS;

describeInChromium('the request page of a selected clinic', () => {
  let inbox: InboxHarness;
  let page: Page;

  beforeAll(async () => {
    inbox = await startInboxHarness([WALDSEE]);
    page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
  }, 240_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  /** A request the clinic accepted and the referrer then selected it for. */
  const selectedRequest = async () => {
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await inbox.sendRequest({ requestIdentifier: identifier, performerIks: [WALDSEE.ik], occurrenceDate: '2026-12-28' });
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    const clinicToken = await inbox.stack.login(inbox.clinics[0]!.username);
    const accepted = await inbox.stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, { token: clinicToken, body: { businessStatus: 'accepted' } });
    expect(accepted.status).toBe(200);
    await inbox.sendRequest({
      requestIdentifier: identifier,
      intent: 'order',
      orderDetail: 'selected-provider',
      performerIks: [WALDSEE.ik],
      patient: 'complete',
      occurrenceDate: '2026-12-28',
    });
    await waitFor(async () => (await inbox.taskOf(identifier, WALDSEE.ik)).status === 'in-progress', { what: 'the selection' });
    return { identifier, taskId: task.id, clinicToken };
  };

  it('offers no answer but the withdrawal, refuses it on a Task answered meanwhile, and withdrawing lifts the selection', async () => {
    const { identifier, taskId, clinicToken } = await selectedRequest();
    const url = `${inbox.baseUrl}/inbox/tasks/${taskId}`;
    await page.goto(url);

    await expect(page.locator('#answer-form').count()).resolves.toBe(0);
    await expect(page.getByRole('heading', { level: 2, name: 'Zusage zurückziehen' }).count()).resolves.toBe(1);
    expect(await page.locator('#withdraw-warning').innerText()).toContain('Auswahl Ihrer Klinik aufgehoben');
    // The form sits beside the summary, where the answer was.
    await expect(page.locator('.task-top #withdraw-form').count()).resolves.toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // The reason is required.
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await expect(page.locator('#withdraw-errors').innerText()).resolves.toContain('Bitte schreiben Sie eine Begründung');
    await expect(page.getByLabel('Begründung für den Zuweiser').getAttribute('aria-invalid')).resolves.toBe('true');
    expect(await seriousViolations(page)).toEqual([]);

    // A colleague answers meanwhile (an answer keeps the selection, but the Task changed): refused, and the page says so.
    await page.getByLabel('Begründung für den Zuweiser').fill(REASON);
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Zusage zurückziehen bestätigen');
    expect(await page.locator('main').innerText()).toContain(REASON);
    expect(await seriousViolations(page)).toEqual([]);
    const query = await inbox.stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, {
      token: clinicToken,
      body: { businessStatus: 'query', note: 'Kommt die Patientin mit eigenem Rollstuhl?' },
    });
    expect(query.status).toBe(200);
    await page.getByRole('button', { name: 'Zusage jetzt zurückziehen' }).click();
    const stale = page.locator('#answer-stale');
    await expect(stale.innerText()).resolves.toContain('Die Zusage wurde nicht zurückgezogen');
    expect(await stale.innerText()).toContain('Aktuelle Antwort Ihrer Klinik: „Rückfrage“');
    expect((await inbox.taskOf(identifier, WALDSEE.ik)).status).toBe('in-progress');
    // The reason is kept in the form, which is still the one action.
    await expect(page.getByLabel('Begründung für den Zuweiser').inputValue()).resolves.toBe(REASON);
    await expect(page.locator('#answer-form').count()).resolves.toBe(0);

    // Keyboard alone: from the reason's field to the confirmation and on.
    await page.getByLabel('Begründung für den Zuweiser').focus();
    await page.keyboard.press('Tab');
    await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Weiter zur Bestätigung');
    await Promise.all([page.waitForURL(`${url}/withdraw/confirm`), page.keyboard.press('Enter')]);
    // Nothing sent yet.
    expect((await inbox.taskOf(identifier, WALDSEE.ik)).status).toBe('in-progress');
    await page.getByRole('button', { name: 'Zusage jetzt zurückziehen' }).focus();
    await Promise.all([page.waitForURL(url), page.keyboard.press('Enter')]);

    await expect(page.getByRole('status').first().innerText()).resolves.toContain('Ihre Zusage wurde zurückgezogen.');
    await expect(page.locator('.meta .status').innerText()).resolves.toBe('Abgesagt');
    await expect(page.locator('#withdraw-form').count()).resolves.toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    expect(await inbox.taskOf(identifier, WALDSEE.ik)).toEqual({ id: taskId, status: 'rejected', businessStatus: 'declined' });
    // The selection is lifted: the request is a proposal again, with no selection for the referrer to withdraw.
    const withdrawal = await inbox.stack.api('POST', '/api/v2/fhir/Bundle', {
      token: inbox.referrerToken,
      body: admissionRequestBundle({
        fhirBase: FHIR_BASE,
        requesterIk: REFERRER_IK,
        performerIks: [WALDSEE.ik],
        requestIdentifier: identifier,
        intent: 'order',
        orderDetail: 'selected-provider-cancelled',
        patient: 'complete',
        occurrenceDate: '2026-12-28',
      }),
    });
    expect(withdrawal.status).toBe(409);

    // Back reaches the confirmation's address, which without its draft shows the request again; nothing is sent twice.
    await page.goBack();
    expect(page.url()).toBe(url);
    await expect(page.locator('.meta .status').innerText()).resolves.toBe('Abgesagt');
  });

  it('shows the withdrawal in one column at 200 % zoom without sideways scrolling', async () => {
    const { taskId } = await selectedRequest();
    const zoomed = await inbox.newPage({ width: 640, height: 450 });
    await inbox.logIn(zoomed, inbox.clinics[0]!);
    await zoomed.goto(`${inbox.baseUrl}/inbox/tasks/${taskId}`);
    const [summary, form] = [(await zoomed.locator('section.summary').boundingBox())!, (await zoomed.locator('section.withdraw').boundingBox())!];
    expect(form.y).toBeGreaterThanOrEqual(summary.y + summary.height - 1);
    await expect(zoomed.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth)).resolves.toBe(false);
    expect(await seriousViolations(zoomed)).toEqual([]);
  });

  (SCREENSHOTS ? it : it.skip)('writes the screenshot of docs/inbox/inbox-withdraw.png', async () => {
    const { taskId } = await selectedRequest();
    mkdirSync(SCREENSHOTS!, { recursive: true });
    const shots = await inbox.newPage({ width: 1280, height: 760 });
    await inbox.logIn(shots, inbox.clinics[0]!);
    await shots.goto(`${inbox.baseUrl}/inbox/tasks/${taskId}`);
    await shots.getByLabel('Begründung für den Zuweiser').fill(REASON);
    // The box in the page's coordinates, as the full page's clip takes them.
    await shots.evaluate(() => window.scrollTo(0, 0));
    const box = (await shots.locator('.task-top').boundingBox())!;
    await shots.screenshot({
      path: join(SCREENSHOTS!, 'inbox-withdraw.png'),
      fullPage: true,
      clip: { x: 0, y: box.y - 24, width: 1280, height: box.height + 48 },
    });
  });
});
