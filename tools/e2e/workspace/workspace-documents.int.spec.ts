import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { DEFAULT_PROFILE_BASE, documentBundleCapacity } from '@bedrequest/fhir-model';
import { describeInChromium, startInboxHarness, type InboxHarness, seriousViolations } from '../inbox/inbox-harness';
import { documentsTexts, megabytes } from '../../../apps/web/src/workspace/documents.texts.de';

/**
 * "Unterlagen senden" (docs/workspace.md) in Chromium against the whole stack: a person of the
 * hospital opens the request's page, goes to Unterlagen senden by keyboard alone, reads the limits
 * before choosing anything, and sends a PDF and a PNG with their kinds; the clinic reads them through
 * its API as one DocumentBundle, byte for byte. A text file named .pdf and a file over the limit are
 * each refused beside their field, and nothing is sent. axe-core on every state of the page.
 */
const WALDSEE = { ik: '513300031', name: 'Reha-Klinik Am Waldsee' };
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');
// A 1 × 1 PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');

interface DocumentList {
  total: number;
  items: {
    entry: {
      resource: { resourceType: string; type?: { text?: string }; content?: { attachment: { contentType: string; data: string; title?: string } }[] };
    }[];
  }[];
}

describeInChromium("the hospital's workspace: Unterlagen senden", () => {
  let harness: InboxHarness;
  let page: Page;
  let taskId: string;
  let clinicToken: string;

  const url = (path: string) => `${harness.baseUrl}/workspace${path}`;
  const documents = async () => (await harness.stack.api<DocumentList>('GET', `/api/v1/clinic/tasks/${taskId}/documents`, { token: clinicToken })).body;
  /** Tabs from where the focus is until `matches` holds for the focused element; false after `steps`. */
  const tabTo = async (matches: string, steps = 40) => {
    for (let step = 0; step < steps; step += 1) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((selector) => document.activeElement?.matches(selector) ?? false, matches)) return true;
    }
    return false;
  };

  beforeAll(async () => {
    harness = await startInboxHarness([WALDSEE]);
    const { identifier } = await harness.sendRequest({ performerIks: [WALDSEE.ik] });
    taskId = (await harness.taskOf(identifier, WALDSEE.ik)).id;
    clinicToken = await harness.stack.login(harness.clinics[0]!.username);
    page = await harness.newPage();
    await harness.logInToWorkspace(page, harness.referrer);
    await page.waitForURL(url('/requests'));
  }, 240_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it('reaches Unterlagen senden from the request by keyboard and states the limits before anything is chosen', async () => {
    await page.goto(url(`/requests/${taskId}`));
    expect(await tabTo(`a[href="/workspace/requests/${taskId}/documents"]`)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Unterlagen senden');
    await Promise.all([page.waitForURL(url(`/requests/${taskId}/documents`)), page.keyboard.press('Enter')]);

    const capacity = documentBundleCapacity(harness.stack.env.PROFILE_BASE ?? DEFAULT_PROFILE_BASE);
    const limits = await page.locator('#documents-limits').innerText();
    expect(limits).toContain(`jede Datei höchstens ${megabytes(capacity)}, alle zusammen höchstens ${megabytes(capacity)}`);
    expect(megabytes(capacity)).toBe('7,4 MB');
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('sends a PDF and a PNG with their kinds, by keyboard, as one DocumentBundle the clinic reads byte for byte', async () => {
    await page.goto(url(`/requests/${taskId}/documents`));
    // Choosing a file is the system's dialog; everything else is the keyboard's.
    await page.locator('#d-file-1').setInputFiles({ name: 'Mustermann Entlassbrief.pdf', mimeType: 'application/pdf', buffer: PDF });
    await page.locator('#d-file-2').setInputFiles({ name: 'wunde.png', mimeType: 'image/png', buffer: PNG });
    expect(await tabTo('#d-kind-1')).toBe(true);
    await page.keyboard.type('Arztbrief');
    expect(await tabTo('#d-kind-2')).toBe(true);
    await page.keyboard.type('Wundfoto');
    expect(await tabTo('button[type="submit"]')).toBe(true);
    await Promise.all([page.waitForURL(url(`/requests/${taskId}?documents=1`)), page.keyboard.press('Enter')]);
    expect(await page.getByRole('status').first().innerText()).toBe(documentsTexts.sent);
    expect(await seriousViolations(page)).toEqual([]);

    const list = await waitFor(
      async () => {
        const read = await documents();
        return read.total > 0 ? read : undefined;
      },
      { what: 'the documents for the clinic' },
    );
    expect(list.total).toBe(1);
    const [composition, ...references] = list.items[0]!.entry.map((entry) => entry.resource);
    expect(composition?.resourceType).toBe('Composition');
    expect(
      references.map((reference) => [reference.type?.text, reference.content?.[0]?.attachment.contentType, reference.content?.[0]?.attachment.title]),
    ).toEqual([
      ['Arztbrief', 'application/pdf', 'Arztbrief'],
      ['Wundfoto', 'image/png', 'Wundfoto'],
    ]);
    expect(Buffer.from(references[0]!.content![0]!.attachment.data, 'base64').equals(PDF)).toBe(true);
    expect(Buffer.from(references[1]!.content![0]!.attachment.data, 'base64').equals(PNG)).toBe(true);
    expect(JSON.stringify(list)).not.toContain('Mustermann');
  });

  it('refuses a text file named .pdf beside its field, the focus on the summary, and sends nothing', async () => {
    await page.goto(url(`/requests/${taskId}/documents`));
    const before = (await documents()).total;
    await page.locator('#d-file-1').setInputFiles({ name: 'brief.pdf', mimeType: 'application/pdf', buffer: Buffer.from('Nur Text, kein PDF.\n') });
    await page.getByLabel('Art des Dokuments').first().fill('Arztbrief');
    await page.getByRole('button', { name: 'Unterlagen senden' }).click();
    await page.locator('#d-file-1-error').waitFor();
    expect(await page.locator('#d-file-1-error').innerText()).toBe(documentsTexts.errors.type);
    expect(await page.evaluate(() => document.activeElement?.classList.contains('error-summary'))).toBe(true);
    expect(await page.locator('#d-kind-1').inputValue()).toBe('Arztbrief');
    expect(page.url()).toBe(url(`/requests/${taskId}/documents`));
    expect(await seriousViolations(page)).toEqual([]);
    expect((await documents()).total).toBe(before);
  });

  it('refuses a file over the limit beside its field and sends nothing, and sends one of the limit exactly (the service takes its bundle)', async () => {
    const capacity = documentBundleCapacity(harness.stack.env.PROFILE_BASE ?? DEFAULT_PROFILE_BASE);
    await page.goto(url(`/requests/${taskId}/documents`));
    const before = (await documents()).total;
    const large = Buffer.concat([PDF, Buffer.alloc(capacity + 1 - PDF.length, 0x20)]);
    await page.locator('#d-file-1').setInputFiles({ name: 'gross.pdf', mimeType: 'application/pdf', buffer: large });
    await page.getByLabel('Art des Dokuments').first().fill('Befund');
    await page.getByRole('button', { name: 'Unterlagen senden' }).click();
    await page.locator('#d-file-1-error').waitFor();
    expect(await page.locator('#d-file-1-error').innerText()).toBe(documentsTexts.errors.size(capacity));
    expect(await seriousViolations(page)).toEqual([]);
    expect((await documents()).total).toBe(before);

    // A file of the limit exactly fits the service's 10 MiB as base64 in its bundle.
    await page.locator('#d-file-1').setInputFiles({ name: 'genau.pdf', mimeType: 'application/pdf', buffer: large.subarray(0, capacity) });
    await page.getByLabel('Art des Dokuments').first().fill('Befund');
    await Promise.all([page.waitForURL(url(`/requests/${taskId}?documents=1`)), page.getByRole('button', { name: 'Unterlagen senden' }).click()]);
    await waitFor(async () => (await documents()).total === before + 1 || undefined, { what: 'the DocumentBundle of the limit for the clinic' });
  });

  it('sends them without JavaScript too, as a plain form with its token', async () => {
    const context = await harness.browser.newContext({ javaScriptEnabled: false, locale: 'de-DE' });
    try {
      const bare = await context.newPage();
      await harness.logInToWorkspace(bare, harness.referrer);
      await bare.waitForURL(url('/requests'));
      await bare.goto(url(`/requests/${taskId}/documents`));
      const before = (await documents()).total;
      await bare.locator('#d-file-1').setInputFiles({ name: 'brief.pdf', mimeType: 'application/pdf', buffer: PDF });
      await bare.getByLabel('Art des Dokuments').first().fill('Arztbrief');
      await Promise.all([bare.waitForURL(url(`/requests/${taskId}?documents=1`)), bare.getByRole('button', { name: 'Unterlagen senden' }).click()]);
      expect(await bare.getByRole('status').first().innerText()).toBe(documentsTexts.sent);
      await waitFor(async () => (await documents()).total === before + 1 || undefined, { what: 'the DocumentBundle sent without JavaScript' });
    } finally {
      await context.close();
    }
  });
});
