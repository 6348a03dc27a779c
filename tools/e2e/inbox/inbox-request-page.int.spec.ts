import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Bundle, DocumentReference, Encounter } from '@medplum/fhirtypes';
import { admissionRequestBundle, documentBundle } from '@bedrequest/fhir-model/testing';
import { requestNumberOf } from '../../../apps/web/src/inbox/request-number';
import { describeInChromium, FHIR_BASE, REFERRER_IK, REFERRER_PARTY, startInboxHarness, type InboxHarness, seriousViolations } from './inbox-harness';

/**
 * The request's page built for the work (docs/inbox.md, "A request", "Antworten"), in Chromium
 * against the whole stack: the summary with the answer beside it, the request number and the
 * referrer's case number and contact, departments and documents by name, the print view on at most two pages,
 * post/redirect/get (Back after sending shows a page, not an error) with "Nächste offene Anfrage",
 * and a focus ring of at least 3:1; axe-core, keyboard alone and 200 % zoom.
 */
const WALDSEE = { ik: '513300021', name: 'Reha-Klinik Am Waldsee', departments: ['2300', '0300'] };
const CASE_NUMBER = 'F-2026-004711';

describeInChromium('the request page of the clinic inbox', () => {
  let inbox: InboxHarness;
  let page: Page;
  /** A typical request: case number, a note on mobility, two documents; and two more open ones. */
  let typical: string;
  const others: string[] = [];

  beforeAll(async () => {
    inbox = await startInboxHarness([WALDSEE]);
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle: Bundle = admissionRequestBundle({
      fhirBase: FHIR_BASE,
      requesterIk: REFERRER_IK,
      performerIks: [WALDSEE.ik],
      requestIdentifier: identifier,
      notes: ['Einzelzimmer erwünscht', 'Mobil an Unterarmgehstützen, Treppensteigen mit Hilfe'],
    });
    const encounter = bundle.entry?.find((entry) => entry.resource?.resourceType === 'Encounter')?.resource as Encounter;
    encounter.identifier = [
      {
        type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'VN' }] },
        system: 'https://inbox-hospital.example/sid/fall',
        value: CASE_NUMBER,
      },
    ];
    const sent = await inbox.stack.api('POST', '/api/v2/fhir/Bundle', { token: inbox.referrerToken, body: bundle });
    if (sent.status !== 202) throw new Error(`the request was refused with ${sent.status}: ${JSON.stringify(sent.body)}`);
    const documents = documentBundle({
      requestIdentifier: identifier,
      documents: [
        { contentType: 'text/plain', text: 'Entlassbrief: mobil an Unterarmgehstützen.', title: 'Arztbrief vom 20.11.' },
        { contentType: 'text/plain', text: 'Röntgen Hüfte links.' },
      ],
    });
    const reference = documents.entry?.find((entry) => entry.resource?.resourceType === 'DocumentReference')?.resource as DocumentReference;
    reference.type = { text: 'Entlassbrief' };
    const posted = await inbox.stack.api('POST', '/api/v2/fhir/Bundle', { token: inbox.referrerToken, body: documents });
    if (posted.status !== 202) throw new Error(`the documents were refused with ${posted.status}: ${JSON.stringify(posted.body)}`);
    typical = (await inbox.taskOf(identifier, WALDSEE.ik)).id;
    for (const occurrenceDate of ['2026-12-14', '2026-12-21']) {
      const { identifier: other } = await inbox.sendRequest({ occurrenceDate });
      others.push((await inbox.taskOf(other, WALDSEE.ik)).id);
    }
    page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
  }, 240_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  const requestUrl = (taskId: string) => `${inbox.baseUrl}/inbox/tasks/${taskId}`;
  const summary = async (target: Page, key: string) => (await target.locator(`[data-summary="${key}"] dd`).innerText()).trim();

  it('opens with the request number and a summary, the answer beside it; departments and documents by name', async () => {
    await page.goto(requestUrl(typical));
    await expect(page.locator('#request-number').innerText()).resolves.toBe(requestNumberOf(typical));
    expect(await page.locator('.request-number').innerText()).toBe(`Anfrage-Nr. ${requestNumberOf(typical)}`);
    expect(await summary(page, 'patient')).toBe('weiblich, 70 Jahre');
    expect(await summary(page, 'diagnosis')).toContain('S72.01 Schenkelhalsfraktur: Intrakapsulär');
    expect(await summary(page, 'admission')).toBe('01.12.2026');
    expect(await summary(page, 'department')).toBe('Orthopädie (2300)');
    expect(await summary(page, 'insurer')).toBe('AOK Nordost (IK 109519005), gesetzlich (GKV)');
    expect(await summary(page, 'mobility')).toBe('Mobil an Unterarmgehstützen, Treppensteigen mit Hilfe');
    expect(await summary(page, 'caseNumber')).toBe(CASE_NUMBER);
    // Whom to call: the referrer party's name and contact, as the harness registered them with party update.
    expect(await summary(page, 'contact')).toBe(`${REFERRER_PARTY.name} · ${REFERRER_PARTY.contactName} · Tel. ${REFERRER_PARTY.contactPhone}`);
    expect(await page.locator('[data-summary="contact"] a').getAttribute('href')).toBe('tel:+49301234567');
    const main = await page.locator('main').innerText();
    expect(main).not.toContain('Fachabteilung 2300');
    const documents = await page.locator('.documents').innerText();
    expect(documents).toContain('Arztbrief vom 20.11. (Entlassbrief,');
    expect(documents).toContain('Dokument 1, Anhang 2 (Text,');
    expect(documents).not.toContain('text/plain');

    // Side by side at 1280 px: the answer's panel beside the summary, both at the top.
    const [box, answer] = [(await page.locator('section.summary').boundingBox())!, (await page.locator('section.answer').boundingBox())!];
    expect(answer.x).toBeGreaterThan(box.x + box.width - 1);
    expect(Math.abs(answer.y - box.y)).toBeLessThan(5);
    expect(answer.y).toBeLessThan(400);
  });

  it('shows one column at 200 % zoom without sideways scrolling, and passes axe-core on the request, its confirmation and print view', async () => {
    const zoomed = await inbox.newPage({ width: 640, height: 450 });
    await inbox.logIn(zoomed, inbox.clinics[0]!);
    await zoomed.goto(requestUrl(typical));
    const [box, answer] = [(await zoomed.locator('section.summary').boundingBox())!, (await zoomed.locator('section.answer').boundingBox())!];
    expect(answer.y).toBeGreaterThanOrEqual(box.y + box.height - 1);
    const overflow = () => zoomed.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth);
    expect(await overflow()).toBe(false);
    await zoomed.goto(`${requestUrl(typical)}/print`);
    expect(await overflow()).toBe(false);

    const found: Record<string, string[]> = {};
    await page.goto(requestUrl(typical));
    found['request'] = await seriousViolations(page);
    await page.goto(`${requestUrl(typical)}/print`);
    found['print view'] = await seriousViolations(page);
    await page.goto(requestUrl(typical));
    await page.getByLabel('Zusage', { exact: true }).check();
    await page.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await page.waitForURL(`${requestUrl(typical)}/confirm`);
    found['confirmation'] = await seriousViolations(page);
    expect(found).toEqual({ request: [], 'print view': [], confirmation: [] });
  });

  it('prints one request on at most two pages, without navigation or form', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'inbox-print-'));
    try {
      const printed = async (url: string) => {
        await page.goto(url);
        const file = join(directory, 'request.pdf');
        writeFileSync(file, await page.pdf({ format: 'A4', printBackground: true }));
        const text = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
        return { text, pages: text.split('\f').filter((part) => part.trim()).length };
      };
      await page.goto(requestUrl(typical));
      await expect(page.getByRole('link', { name: 'Drucken' }).getAttribute('href')).resolves.toBe(`/inbox/tasks/${typical}/print`);

      const view = await printed(`${requestUrl(typical)}/print`);
      expect(view.pages).toBeLessThanOrEqual(2);
      expect(view.text).toContain(requestNumberOf(typical));
      expect(view.text).toContain('S72.01');
      expect(view.text).toContain(CASE_NUMBER);
      expect(view.text).toContain('Entlassbrief');
      for (const chrome of ['Abmelden', 'Zum Inhalt springen', 'Zurück zur Anfrage', 'Strg+P', 'Weiter zur Bestätigung', 'Notiz an den Zuweiser', 'Betten']) {
        expect({ chrome, printed: view.text.includes(chrome) }).toEqual({ chrome, printed: false });
      }

      // The request's page itself, printed with the browser's command, leaves out the same.
      const itself = await printed(requestUrl(typical));
      for (const chrome of ['Abmelden', 'Zurück zur Liste', 'Drucken', 'Weiter zur Bestätigung', 'Notiz an den Zuweiser']) {
        expect({ chrome, printed: itself.text.includes(chrome) }).toEqual({ chrome, printed: false });
      }
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('answers by keyboard alone with a focus ring of at least 3:1; Back after sending shows a page, and "Nächste offene Anfrage" opens another open request', async () => {
    const keyboard = await inbox.newPage();
    await inbox.logIn(keyboard, inbox.clinics[0]!);
    await keyboard.goto(requestUrl(typical));
    /** The focused element, and the contrast of its outline against the background around it (WCAG's relative luminance). */
    const focus = () =>
      keyboard.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        const rgb = (colour: string) => (colour.match(/[\d.]+/g) ?? []).map(Number);
        const luminance = (colour: string) => {
          const [r = 0, g = 0, b = 0] = rgb(colour)
            .map((channel) => channel / 255)
            .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
          return 0.2126 * r + 0.7152 * g + 0.0722 * b;
        };
        let around: Element | null = element.parentElement;
        let background = 'rgb(255, 255, 255)';
        for (; around; around = around.parentElement) {
          const colour = getComputedStyle(around).backgroundColor;
          if (rgb(colour).length === 3 || rgb(colour)[3] !== 0) {
            background = colour;
            break;
          }
        }
        const style = getComputedStyle(element);
        const [lighter, darker] = [luminance(style.outlineColor), luminance(background)].sort((a, b) => b - a) as [number, number];
        return {
          what: `${element.tagName} ${element.id} ${element.innerText ?? ''}`.trim(),
          outline: style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2,
          contrast: Math.round(((lighter + 0.05) / (darker + 0.05)) * 100) / 100,
        };
      });
    const weak: string[] = [];
    const tabTo = async (matches: (what: string) => boolean, limit = 40) => {
      for (let step = 0; step < limit; step += 1) {
        await keyboard.keyboard.press('Tab');
        const focused = await focus();
        if (!focused.outline || focused.contrast < 3) weak.push(`${focused.what}: ${focused.contrast}`);
        if (matches(focused.what)) return step + 1;
      }
      throw new Error(`not reached by Tab: ${(await focus()).what}`);
    };

    // The answer's panel is at the top: a few steps past the header, the links and the summary.
    expect(await tabTo((what) => what.includes('answer-accepted'))).toBeLessThanOrEqual(12);
    await keyboard.keyboard.press('Space');
    await tabTo((what) => what.startsWith('BUTTON') && what.includes('Weiter zur Bestätigung'));
    await Promise.all([keyboard.waitForURL(`${requestUrl(typical)}/confirm`), keyboard.keyboard.press('Space')]);
    expect(await keyboard.locator('[data-field="request-number"] dd').innerText()).toBe(requestNumberOf(typical));
    // The confirmation is a page of its own: reloading it shows it again, and sends nothing.
    await keyboard.reload();
    await expect(keyboard.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Antwort bestätigen');
    expect((await inbox.taskOf(await identifierOf(typical), WALDSEE.ik)).businessStatus).toBeUndefined();
    await tabTo((what) => what.startsWith('BUTTON') && what.includes('Antwort jetzt senden'));
    await Promise.all([keyboard.waitForURL(`${inbox.baseUrl}/inbox/tasks`), keyboard.keyboard.press('Enter')]);
    await expect(keyboard.locator('#answer-sent').innerText()).resolves.toContain('Ihre Antwort „Zusage“ wurde gesendet.');
    expect(weak).toEqual([]);
    expect(await seriousViolations(keyboard)).toEqual([]);

    // Back: the confirmation's address, its answer sent, goes on to the request's page; no resubmission, no error.
    const back = await keyboard.goBack();
    expect(back?.status()).toBe(200);
    expect(keyboard.url()).toBe(requestUrl(typical));
    await expect(keyboard.locator('#request-number').innerText()).resolves.toBe(requestNumberOf(typical));
    await keyboard.goForward();
    expect(keyboard.url()).toBe(`${inbox.baseUrl}/inbox/tasks`);
    // The notice was said once; the list is the list.
    expect(await keyboard.locator('#answer-sent').count()).toBe(0);

    // "Nächste offene Anfrage" opens an open request other than the one answered.
    await keyboard.goto(requestUrl(others[0]!));
    await keyboard.getByLabel('Absage', { exact: true }).check();
    await keyboard.getByLabel('Notiz an den Zuweiser').fill('Kein Bett frei');
    await keyboard.getByRole('button', { name: 'Weiter zur Bestätigung' }).click();
    await keyboard.getByRole('button', { name: 'Antwort jetzt senden' }).click();
    await keyboard.waitForURL(`${inbox.baseUrl}/inbox/tasks`);
    await Promise.all([keyboard.waitForURL(requestUrl(others[1]!)), keyboard.getByRole('link', { name: 'Nächste offene Anfrage' }).click()]);
    await expect(keyboard.locator('.meta .status').innerText()).resolves.toBe('Neu – Antwort ausstehend');
  });

  /** The referrer's identifier of a request, from its Task. */
  async function identifierOf(taskId: string): Promise<string> {
    const task = await inbox.stack.api<{ basedOn: { identifier: { value: string } }[] }>('GET', `/api/v2/fhir/Task/${taskId}`, { token: inbox.referrerToken });
    return task.body.basedOn[0]!.identifier.value;
  }
});
