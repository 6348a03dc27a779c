import type { Page } from 'playwright-core';
import { passwordOf } from '../e2e-stack';
import { describeInChromium, startInboxHarness, type InboxHarness, seriousViolations } from '../inbox/inbox-harness';

/**
 * The party's people on the hospital's workspace (docs/workspace.md, "Personen"), in Chromium against
 * the whole stack: the administrator of a hospital adds a colleague (a refusal shown at its field),
 * who logs in and cannot manage people, and disables them again, which ends their access.
 */
const HOSPITAL = { name: 'Klinikum Nord, Sozialdienst', ik: '261300071', fhirBase: 'https://people-nord.example/fhir' };

describeInChromium("the hospital workspace's people", () => {
  let harness: InboxHarness;
  let admin: Page;
  const erika = `people-erika-${Date.now()}`;
  const max = `people-max-${Date.now()}`;

  const url = (path: string) => `${harness.baseUrl}/workspace${path}`;
  const logIn = async (target: Page, username: string, password = passwordOf(username)) => {
    await harness.logInToWorkspace(target, username, password);
    await target.waitForURL(url('/requests'));
  };
  const add = async (fields: { username: string; password: string; name: string; administrator?: boolean }) => {
    await admin.getByLabel('Benutzername').fill(fields.username);
    await admin.getByLabel('Anfangspasswort').fill(fields.password);
    await admin.getByLabel('Name', { exact: true }).fill(fields.name);
    if (fields.administrator) await admin.getByLabel('Darf Personen verwalten (Administrator)').check();
    await admin.getByRole('button', { name: 'Person hinzufügen' }).click();
    await admin.waitForLoadState();
  };

  beforeAll(async () => {
    harness = await startInboxHarness([]);
    const party = await harness.stack.createParty('referrer', HOSPITAL.name, [HOSPITAL.ik], HOSPITAL.fhirBase);
    await harness.stack.admin(
      'user',
      'create',
      '--party',
      party,
      '--username',
      erika,
      '--password',
      passwordOf(erika),
      '--display-name',
      'Erika Muster',
      '--admin',
    );
    admin = await harness.newPage();
    await logIn(admin, erika);
  }, 240_000);

  afterAll(async () => {
    await harness?.stop();
  });

  it('lists the people, the administrator as themself without a button to disable', async () => {
    await admin.getByRole('link', { name: 'Personen' }).click();
    await admin.waitForURL(url('/people'));
    const row = admin.locator(`tr[data-user="${erika}"]`);
    expect(await row.innerText()).toMatch(/Erika Muster \(Sie\)\s+people-erika-\d+\s+Administrator\s+aktiv/);
    expect(await row.getByRole('button').count()).toBe(0);
    expect(await seriousViolations(admin)).toEqual([]);
  });

  it('shows a refusal at its field, keeping what was typed, and adds the person when it is right', async () => {
    // A username with a space passes the browser's own checks and is refused by the service's.
    await add({ username: 'max beispiel', password: passwordOf(max), name: 'Max Beispiel' });
    const username = admin.getByLabel('Benutzername');
    expect(await username.getAttribute('aria-invalid')).toBe('true');
    expect(await admin.locator('#username-error').innerText()).toContain('Benutzername: must be 1-128 letters');
    expect(await username.inputValue()).toBe('max beispiel');
    expect(await admin.getByLabel('Name', { exact: true }).inputValue()).toBe('Max Beispiel');
    expect(await seriousViolations(admin)).toEqual([]);

    await add({ username: max, password: passwordOf(max), name: 'Max Beispiel' });
    await admin.waitForURL(/\/workspace\/people\?added=/);
    expect(await admin.getByRole('status').first().innerText()).toBe('Max Beispiel wurde hinzugefügt und kann sich jetzt anmelden.');
    expect(await admin.locator(`tr[data-user="${max}"]`).innerText()).toMatch(/Max Beispiel\s+people-max-\d+\s+Mitarbeiter\s+aktiv/);

    // The same username again: the API's refusal stands at the username.
    await add({ username: max, password: passwordOf(max), name: 'Max Zwei' });
    expect(await admin.getByLabel('Benutzername').getAttribute('aria-invalid')).toBe('true');
    expect(await admin.locator('#username-error').innerText()).toContain('is taken');
  });

  it('lets the colleague log in, who reads that only administrators manage people, and ends their access once disabled', async () => {
    const colleague = await harness.newPage();
    await logIn(colleague, max);
    await colleague.goto(url('/people'));
    expect(await colleague.locator('main').innerText()).toContain('Nur die Administratoren Ihres Krankenhauses verwalten die Personen.');
    expect(await colleague.locator('form[action="/workspace/people"]').count()).toBe(0);

    await admin.goto(url('/people'));
    await admin.getByRole('button', { name: 'Max Beispiel deaktivieren' }).click();
    await admin.waitForURL(/\/workspace\/people\?disabled=/);
    expect(await admin.getByRole('status').first().innerText()).toBe('Max Beispiel kann sich nicht mehr anmelden.');
    expect(await admin.locator(`tr[data-user="${max}"]`).innerText()).toContain('deaktiviert');

    // The gateway reads the revocations every second: within a few the colleague's next page is the login.
    for (let attempt = 0; attempt < 20 && !colleague.url().includes('/workspace/login'); attempt += 1) {
      await colleague.waitForTimeout(500);
      await colleague.goto(url('/requests'));
    }
    expect(colleague.url()).toBe(url('/login?expired=1'));
  });
});
