import { randomUUID } from 'node:crypto';
import type { DocumentReference } from '@medplum/fhirtypes';
import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { documentBundle } from '@bedrequest/fhir-model/testing';
import { describeInChromium, FHIR_BASE, startInboxHarness, type InboxClinic, type InboxHarness, seriousViolations } from './inbox-harness';

/**
 * The clinic's answers and the referrer's documents on the request's page (docs/inbox.md, "A
 * request"), in Chromium against the whole stack, from the clinic's history of the Task: one entry
 * per answer with its time, the person who gave it and the note given with it beneath it (the notes
 * stood in a list of their own and went under the wrong answer); documents sent after "Weitere Daten
 * erforderlich" mark the request as reopened with documents supplied and appear in its "Verlauf".
 */
const WALDSEE = { ik: '513300041', name: 'Reha-Klinik Am Waldsee' };

describeInChromium("the clinic's answers and documents in the request's history", () => {
  let inbox: InboxHarness;
  let page: Page;
  let tom: InboxClinic;
  let bea: InboxClinic;

  beforeAll(async () => {
    inbox = await startInboxHarness([WALDSEE]);
    const party = await inbox.stack.createParty('clinic', WALDSEE.name, [WALDSEE.ik]);
    const suffix = randomUUID().slice(0, 8);
    tom = { ...WALDSEE, username: `tom-${suffix}` };
    bea = { ...WALDSEE, username: `bea-${suffix}` };
    await inbox.stack.createPerson(party, tom.username, 'Tom Becker');
    await inbox.stack.createPerson(party, bea.username, 'Bea Brandt');
    page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
  }, 240_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  const answer = async (who: InboxClinic, taskId: string, body: { businessStatus: string; note?: string }) => {
    const answered = await inbox.stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: await inbox.stack.login(who.username), body });
    expect(answered.status).toBe(200);
  };

  /** Each answer on the page, newest first: its answer, the person, and the note under it. */
  const answersOn = (target: Page) =>
    target.locator('.answer-history > li').evaluateAll((items) =>
      items.map((item) => ({
        answer: item.querySelector('.answer-head strong')?.textContent,
        by: item.querySelector('.note-author')?.textContent,
        note: item.querySelector('.answer-note')?.textContent,
        time: item.querySelector('time')?.textContent,
      })),
    );

  it('shows one entry per answer, each with its own note and person', async () => {
    const { identifier } = await inbox.sendRequest();
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    await answer(tom, task.id, { businessStatus: 'accepted' });
    await answer(tom, task.id, { businessStatus: 'query', note: 'Kommt die Patientin mit Rollator?' });
    await answer(bea, task.id, { businessStatus: 'declined', note: 'Leider kein Einzelzimmer frei.' });

    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);

    const answers = await answersOn(page);
    expect(answers.map(({ answer: code, by, note }) => ({ answer: code, by, note }))).toEqual([
      { answer: 'Absage', by: 'von Bea Brandt', note: 'Leider kein Einzelzimmer frei.' },
      { answer: 'Rückfrage', by: 'von Tom Becker', note: 'Kommt die Patientin mit Rollator?' },
      { answer: 'Zusage', by: 'von Tom Becker', note: 'ohne Notiz' },
    ]);
    for (const entry of answers) expect(entry.time).toMatch(/^\d{2}\.\d{2}\.\d{4}, \d{2}:\d{2}$/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('marks the request reopened by the documents sent after "Weitere Daten erforderlich" and lists them in its history', async () => {
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await inbox.sendRequest({ requestIdentifier: identifier });
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    await answer(bea, task.id, { businessStatus: 'more-data-required', note: 'Bitte den Entlassbrief nachreichen.' });
    await waitFor(async () => (await inbox.taskOf(identifier, WALDSEE.ik)).status === 'on-hold', { what: 'the answer' });

    const documents = documentBundle({
      requestIdentifier: identifier,
      documents: [
        { contentType: 'text/plain', text: 'Entlassbrief: mobil am Rollator.', title: 'Brief.txt' },
        { contentType: 'text/plain', text: 'Röntgen Hüfte links.', title: 'Röntgen Hüfte' },
      ],
    });
    const reference = documents.entry?.find((entry) => entry.resource?.resourceType === 'DocumentReference')?.resource as DocumentReference;
    reference.type = { text: 'Entlassbrief' };
    expect((await inbox.stack.api('POST', '/api/v2/fhir/Bundle', { token: inbox.referrerToken, body: documents })).status).toBe(202);
    await waitFor(async () => (await inbox.taskOf(identifier, WALDSEE.ik)).status === 'requested', { what: 'the Task reopened by the documents' });

    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);

    await expect(page.locator('.meta .status').innerText()).resolves.toBe('Dokumente nachgereicht – bitte erneut beantworten');
    expect(await page.locator('#documents-supplied').innerText()).toContain('Dokumente nachgereicht');
    const delivery = page.locator('.history > li[data-kind="documents"]');
    await expect(delivery.count()).resolves.toBe(1);
    const said = await delivery.innerText();
    expect(said).toContain('Dokumente nachgereicht am');
    expect(said).toContain('2 Dokumente');
    expect(said).toContain('Entlassbrief');
    expect(said).toContain('wieder zur Antwort offen');
    // Newest first: the delivery above the request it came for.
    await expect(page.locator('.history > li').first().getAttribute('data-kind')).resolves.toBe('documents');
    expect(await answersOn(page)).toEqual([
      expect.objectContaining({ answer: 'Weitere Daten erforderlich', by: 'von Bea Brandt', note: 'Bitte den Entlassbrief nachreichen.' }),
    ]);
    // The answer form is there for the new answer.
    await expect(page.locator('#answer-form').count()).resolves.toBe(1);
    expect(await seriousViolations(page)).toEqual([]);

    // Answered again, the request is no longer marked.
    await answer(tom, task.id, { businessStatus: 'accepted' });
    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);
    await expect(page.locator('.meta .status').innerText()).resolves.toBe('Zugesagt');
    await expect(page.locator('#documents-supplied').count()).resolves.toBe(0);
  });

  it("shows the clinic's workspace beside the answer: who works on the request, and taking it over", async () => {
    const { identifier } = await inbox.sendRequest();
    const task = await inbox.taskOf(identifier, WALDSEE.ik);
    const taken = await inbox.stack.api('PUT', `/api/v1/clinic/tasks/${task.id}/assignee`, { token: await inbox.stack.login(tom.username), body: {} });
    expect(taken.status).toBe(200);

    await page.goto(`${inbox.baseUrl}/inbox/tasks/${task.id}`);

    const workspace = page.locator('.task-top .task-side #workspace');
    await expect(workspace.locator('#workspace-assignee').innerText()).resolves.toMatch(/^In Bearbeitung: Tom Becker seit /);
    // Beside the summary, under the answer.
    const [summary, answerBox, workspaceBox] = await Promise.all([
      page.locator('section.summary').boundingBox(),
      page.locator('section.answer').boundingBox(),
      workspace.boundingBox(),
    ]);
    expect(answerBox!.x).toBeGreaterThan(summary!.x + summary!.width - 1);
    expect(workspaceBox!.x).toBe(answerBox!.x);
    expect(workspaceBox!.y).toBeGreaterThanOrEqual(answerBox!.y + answerBox!.height - 1);
    expect(await seriousViolations(page)).toEqual([]);

    // Keyboard alone: taking it over from Tom.
    await page.getByRole('button', { name: 'Von Tom Becker übernehmen' }).focus();
    await Promise.all([page.waitForURL(/workspace=taken-over/), page.keyboard.press('Enter')]);
    await expect(page.locator('#workspace-assignee').innerText()).resolves.toMatch(/^In Bearbeitung: Sie selbst seit /);
  });
});
