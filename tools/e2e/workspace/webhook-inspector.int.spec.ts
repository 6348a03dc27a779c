import { randomBytes } from 'node:crypto';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '@bedrequest/testing';
import { startTestReceiver } from '@bedrequest/webhook-check/testing';
import { passwordOf } from '../e2e-stack';
import { describeInChromium, startInboxHarness, type InboxHarness } from '../inbox/inbox-harness';

/**
 * The sandbox's webhook inspector (docs/workspace.md, "Webhook-Inspektor (nur Sandbox)") in Chromium
 * against the whole stack with SANDBOX=true: the banner and the `Bedrequest-Environment` header on
 * the inbox's and the workspace's pages (and neither on a web app without SANDBOX, whose inspector
 * is not found); the subscription made with the page's button, a clinic's answer delivered by the
 * notifier and shown live with a valid signature; failures on purpose (503 twice, a timeout) as the
 * notifier's delivery log and the page show them; a forged and an oversized POST; the receiver check
 * (libs/webhook-check) of a correct receiver and of the inspector's own; CSRF on the forms.
 * WEBHOOK_TIMEOUT 1 s and retries 1 s apart keep the failure cases short.
 */
const CLINIC = { ik: '513300043', name: 'Reha-Klinik Sandstrand' };
const BANNER = 'Sandbox – Testumgebung, keine echten Patientendaten';

interface LogEntry {
  eventId: string;
  status: string;
  attempts: { statusCode: number | null; error: string | null }[];
}

/** Every axe-core violation of the page as it is now, whatever its impact. */
async function violations(target: Page): Promise<string[]> {
  await target.evaluate(axe.source);
  const results = await target.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
  return results.violations.map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

describeInChromium('the webhook inspector of a sandbox', () => {
  let harness: InboxHarness;
  let page: Page;
  let plainUrl: string;
  let address: string;
  let subscriptionId: string;

  const inspector = (base = harness.baseUrl) => `${base}/workspace/sandbox/webhooks`;
  /** A delivery on the page, found by what its summary says. */
  const delivery = (text: string | RegExp) => page.locator('#delivery-log > li.delivery').filter({ hasText: text });
  /** The clinic answers a new request of the hospital; the AdmissionResponse event's id, read from the delivery log once it is in it. */
  const answeredRequest = async (): Promise<string> => {
    const known = new Set((await deliveryLog()).map((entry) => entry.eventId));
    const { identifier } = await harness.sendRequest();
    const task = await harness.taskOf(identifier, CLINIC.ik);
    const token = await harness.stack.login(harness.clinics[0]!.username);
    const answered = await harness.stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, { token, body: { businessStatus: 'accepted' } });
    expect(answered.status).toBe(200);
    return waitFor(async () => (await deliveryLog()).find((entry) => !known.has(entry.eventId))?.eventId, { what: 'the answer in the delivery log' });
  };
  const deliveryLog = async () =>
    (await harness.stack.api<{ items: LogEntry[] }>('GET', `/api/v1/subscriptions/${subscriptionId}/deliveries`, { token: harness.referrerToken })).body.items;
  const delivered = (eventId: string) =>
    waitFor(async () => (await deliveryLog()).find((entry) => entry.eventId === eventId && entry.status === 'delivered'), {
      what: `${eventId} delivered`,
      timeoutMs: 30_000,
    });

  beforeAll(async () => {
    harness = await startInboxHarness([CLINIC], { SANDBOX: 'true', WEBHOOK_TIMEOUT: '1s', WEBHOOK_RETRY_SCHEDULE: '1s,1s,1s,1s,1s' });
    // The same stack's web app once more, without SANDBOX: what every other deployment serves.
    plainUrl = (await harness.stack.stack.start('web-plain', 'web', { env: { SANDBOX: 'false' } })).url;
    page = await harness.newPage();
    await harness.logInToWorkspace(page, harness.referrer);
    await page.waitForURL(`${harness.baseUrl}/workspace/requests`);
  }, 240_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it("shows the banner on the workspace's and the inbox's pages and sends the header with each, and links the inspector", async () => {
    const requests = await page.goto(`${harness.baseUrl}/workspace/requests`);
    expect(requests?.headers()['bedrequest-environment']).toBe('sandbox');
    expect(await page.locator('#sandbox-banner').innerText()).toBe(BANNER);
    expect(await page.getByRole('navigation').getByRole('link', { name: 'Webhook-Inspektor' }).getAttribute('href')).toBe('/workspace/sandbox/webhooks');

    const clinic = await harness.newPage();
    await harness.logIn(clinic, harness.clinics[0]!);
    const tasks = await clinic.goto(`${harness.baseUrl}/inbox/tasks`);
    expect(tasks?.headers()['bedrequest-environment']).toBe('sandbox');
    expect(await clinic.locator('#sandbox-banner').innerText()).toBe(BANNER);
    const notFound = await clinic.goto(`${harness.baseUrl}/inbox/nowhere`);
    expect(notFound?.status()).toBe(404);
    expect(await clinic.locator('#sandbox-banner').isVisible()).toBe(true);
  });

  it('shows neither banner nor header without SANDBOX, and its inspector and receivers are not found', async () => {
    const plain = await harness.newPage();
    await plain.goto(`${plainUrl}/workspace/login`);
    await plain.getByLabel('Benutzername').fill(harness.referrer);
    await plain.getByLabel('Passwort').fill(passwordOf(harness.referrer));
    await Promise.all([plain.waitForURL(`${plainUrl}/workspace/requests`), plain.getByRole('button', { name: 'Anmelden' }).click()]);
    const requests = await plain.goto(`${plainUrl}/workspace/requests`);
    expect(requests?.headers()['bedrequest-environment']).toBeUndefined();
    expect(await plain.locator('#sandbox-banner').count()).toBe(0);
    expect(await plain.getByRole('link', { name: 'Webhook-Inspektor' }).count()).toBe(0);
    expect((await plain.goto(inspector(plainUrl)))?.status()).toBe(404);
    expect((await plain.goto(`${inspector(plainUrl)}/updates`))?.status()).toBe(404);
    // A receiver the sandbox made (the page below makes it) is no address of the plain web app.
    await page.goto(inspector());
    const path = new URL(await page.locator('#receiver-address').innerText()).pathname;
    expect((await fetch(`${plainUrl}${path}`, { method: 'POST', body: '{}' })).status).toBe(404);
  });

  it("makes the subscription with its button and shows a clinic's answer as the notifier delivers it, signature valid, without a reload", async () => {
    await page.goto(`${harness.baseUrl}/workspace/requests`);
    await Promise.all([page.waitForURL(inspector()), page.getByRole('link', { name: 'Webhook-Inspektor' }).click()]);
    address = await page.locator('#receiver-address').innerText();
    expect(address).toMatch(new RegExp(`^${harness.baseUrl}/sandbox/hooks/[A-Za-z0-9_-]{43}$`));

    await Promise.all([page.waitForURL(/\?saved=subscribed$/), page.getByRole('button', { name: 'Abonnement für diesen Empfänger anlegen' }).click()]);
    expect(await page.getByRole('status').first().innerText()).toContain('Das Abonnement stellt jetzt an diese Adresse zu');
    expect(await page.locator('#known-secrets').innerText()).toContain('Abonnement AdmissionResponse: whsec_');
    const { body } = await harness.stack.api<{ items: { id: string; eventType: string; callbackUrl: string }[] }>('GET', '/api/v1/subscriptions', {
      token: harness.referrerToken,
    });
    const subscription = body.items.find((item) => item.eventType === 'AdmissionResponse');
    expect(subscription?.callbackUrl).toBe(address);
    subscriptionId = subscription!.id;
    expect(await page.locator(`tr[data-subscription="${subscriptionId}"]`).innerText()).toMatch(/AdmissionResponse\s+diesen Empfänger\s+aktiv/);

    const eventId = await answeredRequest();
    const entry = delivery(eventId);
    await entry.waitFor({ timeout: 30_000 });
    expect(await page.locator('#delivery-status').innerText()).toBe('Eine neue Zustellung ist eingegangen.');
    expect(await entry.getAttribute('data-check')).toBe('valid');
    expect(await entry.locator('summary').innerText()).toMatch(/Signatur gültig\s+Antwort HTTP 204\s+AdmissionResponse #\d+ \(/);
    await entry.locator('summary').click();
    expect(await entry.locator('.check-detail').innerText()).toContain('Die Signatur stimmt mit dem Geheimnis „Abonnement AdmissionResponse“');
    expect(await entry.locator('.delivery-headers').innerText()).toMatch(/webhook-signature\s+v1,/);
    const shown = JSON.parse(await entry.locator('.delivery-body').innerText()) as { id: string; type: string; data: { resourceType: string } };
    expect(shown).toMatchObject({ id: eventId, type: 'AdmissionResponse', data: { resourceType: 'Task' } });
    expect(await violations(page)).toEqual([]);
  });

  it("answers a script its party's receiver address for an API token: the page's address; 401 without a valid token, 403 for a clinic's", async () => {
    const receiver = (token?: string) =>
      fetch(`${harness.baseUrl}/sandbox/receiver`, { headers: token ? { authorization: `Bearer ${token}` } : {} }).then(async (answer) => ({
        status: answer.status,
        body: (await answer.json()) as { url?: string; error?: string },
      }));
    expect(await receiver(harness.referrerToken)).toEqual({ status: 200, body: { url: address } });
    expect((await receiver()).status).toBe(401);
    expect((await receiver('not-a-token')).status).toBe(401);
    expect(await receiver(await harness.stack.login(harness.clinics[0]!.username))).toMatchObject({ status: 403, body: { error: 'forbidden' } });
    expect((await fetch(`${plainUrl}/sandbox/receiver`, { headers: { authorization: `Bearer ${harness.referrerToken}` } })).status).toBe(404);
  });

  it('fails the next two deliveries with 503: the delivery log shows both attempts and the third delivered, the page each marked', async () => {
    await page.getByLabel('Anzahl der Zustellungen (1 bis 100)').fill('2');
    await page.getByLabel('mit HTTP-Status antworten').check();
    await page.getByLabel('HTTP-Status (400 bis 599)').fill('503');
    await Promise.all([page.waitForURL(/\?saved=fail$/), page.getByRole('button', { name: 'Fehlschlagen lassen' }).click()]);
    expect(await page.locator('#fail-state').innerText()).toBe('Noch 2 Zustellungen schlagen absichtlich fehl: Antwort mit HTTP 503.');

    const eventId = await answeredRequest();
    const log = await delivered(eventId);
    expect(log.attempts.map((attempt) => attempt.statusCode).sort()).toEqual([204, 503, 503]);
    await waitFor(async () => (await delivery(eventId).count()) === 3, { what: 'three deliveries of the event on the page', timeoutMs: 15_000 });
    const summaries = await delivery(eventId).locator('summary').allInnerTexts();
    // Newest first: the one accepted, then the two failed on purpose.
    expect(summaries[0]).toMatch(/Signatur gültig\s+Antwort HTTP 204\s+AdmissionResponse/);
    expect(summaries.slice(1).every((summary) => /Signatur gültig\s+Antwort HTTP 503\s+absichtlich fehlgeschlagen/.test(summary))).toBe(true);
    expect(await page.locator('#fail-state').innerText()).toBe('Alle Zustellungen werden angenommen (HTTP 204).');
  });

  it('holds the answer of a timeout failure: the notifier gives up after WEBHOOK_TIMEOUT and delivers on its retry', async () => {
    await page.goto(inspector());
    await page.getByLabel('Anzahl der Zustellungen (1 bis 100)').fill('1');
    await page.getByLabel(/nicht rechtzeitig antworten/).check();
    await Promise.all([page.waitForURL(/\?saved=fail$/), page.getByRole('button', { name: 'Fehlschlagen lassen' }).click()]);
    expect(await page.locator('#fail-state').innerText()).toBe('Noch eine Zustellung schlägt absichtlich fehl: Zeitüberschreitung.');

    const eventId = await answeredRequest();
    const log = await delivered(eventId);
    expect(log.attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual(
      expect.arrayContaining([
        [null, 'no answer within 1000 ms'],
        [204, null],
      ]),
    );
    await waitFor(async () => (await delivery(eventId).count()) === 2, { what: 'both deliveries of the event on the page', timeoutMs: 15_000 });
    expect(await delivery(eventId).locator('summary').last().innerText()).toMatch(/Antwort zurückgehalten \(Zeitüberschreitung\)\s+absichtlich fehlgeschlagen/);
  });

  it('shows a forged POST as invalid and an oversized one as 413, each as it arrives', async () => {
    const body = '{"id":"forged-1","type":"AdmissionResponse","sequence":1,"data":{}}';
    const now = new Date();
    const forged = await fetch(address, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'webhook-id': 'forged-1',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new Webhook(`whsec_${randomBytes(32).toString('base64')}`).sign('forged-1', now, body),
      },
      body,
    });
    expect(forged.status).toBe(204);
    const entry = delivery('forged-1');
    await entry.waitFor({ timeout: 10_000 });
    expect(await entry.getAttribute('data-check')).toBe('invalid');
    expect(await entry.locator('summary').innerText()).toMatch(/Signatur ungültig\s+Antwort HTTP 204/);

    const oversized = await fetch(address, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'x'.repeat(1024 * 1024 + 1) });
    expect(oversized.status).toBe(413);
    const refused = delivery('Antwort HTTP 413');
    await refused.waitFor({ timeout: 10_000 });
    expect(await refused.locator('summary').innerText()).toMatch(/nicht geprüft\s+Antwort HTTP 413/);
    await refused.locator('summary').click();
    expect(await refused.innerText()).toContain('Nicht aufgezeichnet: größer als 1.048.576 Bytes (Antwort HTTP 413).');
    expect(await violations(page)).toEqual([]);
  });

  it("checks the integrator's receiver with the subscription's secret and shows each line: a correct one passes, the inspector's own does not refuse", async () => {
    const { body } = await harness.stack.api<{ items: { eventType: string; secret: string }[] }>('GET', '/api/v1/subscriptions', {
      token: harness.referrerToken,
    });
    const secret = body.items.find((item) => item.eventType === 'AdmissionResponse')!.secret;
    const receiver = await startTestReceiver({ secret });
    try {
      await page.goto(inspector());
      await page.getByLabel('Adresse Ihres Empfängers').fill(receiver.url);
      // The secret left empty: the subscription's, which the receiver verifies with.
      await page.getByRole('button', { name: 'Empfänger prüfen' }).click();
      await page.locator('#check-summary').waitFor({ timeout: 60_000 });
      expect(await page.locator('#check-summary').innerText()).toBe('Ihr Empfänger besteht alle Prüfungen.');
      expect(
        await page
          .locator('[data-check-line]')
          .evaluateAll((lines) => lines.map((line) => [line.getAttribute('data-check-line'), line.getAttribute('data-ok')])),
      ).toEqual([
        ['answers-2xx-in-time', 'true'],
        ['refuses-bad-signature', 'true'],
        ['refuses-stale-timestamp', 'true'],
        ['handles-duplicate-once', 'true'],
      ]);
      expect(receiver.handled).toHaveLength(2);
      expect(await page.getByLabel('Adresse Ihres Empfängers').inputValue()).toBe(receiver.url);
      expect(await page.getByLabel('Geheimnis des Abonnements (whsec_…)').inputValue()).toBe('');
      expect(await violations(page)).toEqual([]);
    } finally {
      await receiver.close();
    }

    // The inspector's own receiver takes everything: the check says it refuses neither a bad signature nor a stale timestamp,
    // and the inspector records the test events with what its own check found.
    await page.getByLabel('Adresse Ihres Empfängers').fill(address);
    await page.getByRole('button', { name: 'Empfänger prüfen' }).click();
    await page.locator('#check-summary').waitFor({ timeout: 60_000 });
    expect(await page.locator('#check-summary').innerText()).toBe('2 von 4 Prüfungen nicht bestanden: der Empfänger ist noch nicht bereit für Webhooks.');
    expect(await page.locator('[data-check-line="refuses-bad-signature"]').innerText()).toContain(
      'nicht bestanden Lehnt eine falsche Signatur ab (refuses-bad-signature): answered 204',
    );
    await page.goto(inspector());
    const checks = await page.locator('#delivery-log > li.delivery').evaluateAll((items) => items.slice(0, 5).map((item) => item.getAttribute('data-check')));
    expect(checks.sort()).toEqual(['invalid', 'stale', 'valid', 'valid', 'valid']);

    await page.getByLabel('Adresse Ihres Empfängers').fill('ftp://receiver.example/hooks');
    await page.getByRole('button', { name: 'Empfänger prüfen' }).click();
    await page.waitForLoadState();
    expect(await page.locator('#check-url-error').innerText()).toBe('Nicht geprüft: must be an absolute http or https URL');
    expect(await page.getByLabel('Adresse Ihres Empfängers').getAttribute('aria-invalid')).toBe('true');
  });

  it('refuses a form posted without the CSRF token and changes nothing; the list works without script by reloading', async () => {
    const refused = await page.request.post(`${inspector()}/fail`, { form: { count: '5', mode: 'status', status: '500' } });
    expect(refused.status()).toBe(403);
    await page.goto(inspector());
    expect(await page.locator('#fail-state').innerText()).toBe('Alle Zustellungen werden angenommen (HTTP 204).');

    const context = await harness.browser.newContext({ javaScriptEnabled: false, locale: 'de-DE' });
    try {
      const plain = await context.newPage();
      await harness.logInToWorkspace(plain, harness.referrer);
      await plain.waitForURL(`${harness.baseUrl}/workspace/requests`);
      await plain.goto(inspector());
      expect(await plain.locator('#delivery-log li[data-delivery-id]').count()).toBeGreaterThan(0);
      const newest = Number(await plain.locator('#delivery-log li').first().getAttribute('data-delivery-id'));
      expect((await fetch(address, { method: 'POST', body: 'no signature' })).status).toBe(204);
      await plain.getByRole('link', { name: 'Neu laden' }).click();
      const first = plain.locator('#delivery-log li').first();
      expect(Number(await first.getAttribute('data-delivery-id'))).toBeGreaterThan(newest);
      await first.locator('summary').click();
      expect(await first.locator('.delivery-body').innerText()).toBe('no signature');
      expect(await first.locator('.check-detail').innerText()).toContain('webhook-signature fehlt');
    } finally {
      await context.close();
    }
  });
});
