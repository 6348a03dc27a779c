import type { Bundle, ServiceRequest } from '@medplum/fhirtypes';
import type { Page } from 'playwright-core';
import { DEFAULT_PROFILE_BASE } from '@bedrequest/fhir-model';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { describeInChromium, FHIR_BASE, REFERRER_IK, startInboxHarness, type InboxHarness, seriousViolations } from '../inbox/inbox-harness';

/**
 * Asking by rule in Chromium (docs/workspace.md, "Einstellungen" and "Eine Anfrage"), with intake
 * sweeping every second: a person of the hospital sets the rule on Einstellungen (a refusal keeps
 * what was entered), a request's deadline passes unanswered, the nearest clinic with the
 * department is asked and marked on the request's page; the rule is removed again.
 */
const NAMED = { ik: '513300051', name: 'Reha-Klinik Angefragt' };
const NEAR = { ik: '513300052', name: 'Rehazentrum Potsdam' };
const DEADLINE_URL = `${DEFAULT_PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`;

describeInChromium("the hospital's workspace: asking by rule", () => {
  let harness: InboxHarness;
  let page: Page;
  const url = (path: string) => `${harness.baseUrl}/workspace${path}`;

  beforeAll(async () => {
    harness = await startInboxHarness([NAMED, NEAR], { OVERDUE_SWEEP_SECONDS: '1' });
    await harness.stack.admin(
      'clinic',
      'upsert',
      '--ik',
      NEAR.ik,
      '--name',
      NEAR.name,
      '--departments',
      '2300,0300',
      '--latitude',
      '52.39',
      '--longitude',
      '13.065',
    );
    page = await harness.newPage();
    await harness.logInToWorkspace(page, harness.referrer);
    await page.waitForURL(url('/requests'));
  }, 240_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it('sets the rule on Einstellungen, marks the clinic it asked on the request page, and removes it', async () => {
    await page.goto(url('/settings'));
    expect(await page.locator('#escalation-none').count()).toBe(1);
    await page.getByLabel('Anfragen, wenn weniger Kliniken offen sind als').selectOption('1');
    await page.getByLabel('So viele Kliniken je Schritt anfragen').selectOption('1');
    await page.getByLabel('Postleitzahl').fill('1011');
    await page.getByLabel('Breitengrad').fill('52,532');
    await page.getByLabel('Längengrad').fill('13,384');
    await page.getByRole('button', { name: 'Regel übernehmen' }).click();
    expect(await page.getByRole('alert').first().innerText()).toContain('escalation.origin.postalCode');
    expect(await page.getByLabel('Breitengrad').inputValue()).toBe('52,532');
    expect(await seriousViolations(page)).toEqual([]);

    await page.getByLabel('Postleitzahl').fill('10115');
    await Promise.all([page.waitForURL(url('/settings?saved=rule')), page.getByRole('button', { name: 'Regel übernehmen' }).click()]);
    expect(await page.getByLabel('Längengrad').inputValue()).toBe('13,384');
    const read = await harness.stack.api<{ escalation?: object }>('GET', '/api/v1/referrer/settings', { token: harness.referrerToken });
    expect(read.body.escalation).toEqual({ whenOpenBelow: 1, askNext: 1, origin: { postalCode: '10115', latitude: 52.532, longitude: 13.384 } });
    expect(await seriousViolations(page)).toEqual([]);

    // A request to one clinic, its deadline a few seconds ahead, left unanswered.
    const bundle = admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: REFERRER_IK, performerIks: [NAMED.ik] }) as Bundle;
    const request = bundle.entry?.find((entry) => entry.resource?.resourceType === 'ServiceRequest')?.resource as ServiceRequest;
    request.extension = [
      ...(request.extension ?? []),
      { url: DEADLINE_URL, valueDateTime: new Date(Date.now() + 5_000).toISOString().replace(/\.\d{3}Z$/, '+00:00') },
    ];
    expect((await harness.stack.api('POST', '/api/v2/fhir/Bundle', { token: harness.referrerToken, body: bundle })).status).toBe(202);
    const named = await harness.taskOf(request.identifier?.[0]?.value ?? '', NAMED.ik);
    const asked = await waitFor(async () => harness.taskOf(request.identifier?.[0]?.value ?? '', NEAR.ik).catch(() => undefined), {
      what: 'the clinic the rule asked',
      timeoutMs: 60_000,
    });

    await page.goto(url(`/requests/${named.id}`));
    const row = page.locator(`tr[data-task-id="${asked?.id}"]`);
    expect(await row.getAttribute('data-asked-by-rule')).toBe('registry');
    expect(await row.locator('.asked-by-rule').innerText()).toBe('Nach Ihrer Regel angefragt (nächstgelegene Klinik mit der Fachabteilung)');
    expect(await page.locator(`tr[data-task-id="${named.id}"] .asked-by-rule`).count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    await page.goto(url('/settings'));
    await Promise.all([page.waitForURL(url('/settings?saved=rule-removed')), page.getByRole('button', { name: 'Regel entfernen' }).click()]);
    expect(await page.locator('#escalation-none').count()).toBe(1);
    expect((await harness.stack.api('GET', '/api/v1/referrer/settings', { token: harness.referrerToken })).body).toEqual({
      answerDeadline: { workingDays: 2, holidays: 'DE' },
    });
  }, 120_000);
});
