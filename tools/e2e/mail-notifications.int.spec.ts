// E-mail to the people who asked for it (docs/operations.md, "E-mail"), through the whole stack and a
// real SMTP server started here: a clinic's person and a hospital's turn it on in Chromium (the
// inbox's Benachrichtigungen, the workspace's Personen), another through the API; the hospital sends
// a request with a short deadline; the clinics' people are told of it, the one still to answer is
// reminded exactly once, the hospital's person is told of the answer and of the overdue clinic.
// No mail holds any of the patient data sent, nor the clinic's note; each holds its link.
import { randomUUID } from 'node:crypto';
import type { Patient } from '@medplum/fhirtypes';
import type { Page } from 'playwright-core';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { SmtpCapture, waitFor, type CapturedMail } from '@bedrequest/testing';
import { passwordOf } from './e2e-stack';
import { describeInChromium, FHIR_BASE, REFERRER_IK, seriousViolations, startInboxHarness, type InboxHarness } from './inbox/inbox-harness';

const LATE = { ik: '510000421', name: 'Rehazentrum Spät' };
const PROMPT = { ik: '510000422', name: 'Rehaklinik Pünktlich' };
const WEB = 'https://betten.example.org';
const PROFILE_BASE = 'https://bedrequest.example.org';
/** What this request says of its patient, and the clinic's note: none of it may stand in a mail. */
const PATIENT = { family: 'Zwiebelmeier', given: 'Hildegard', birthDate: '1948-03-17', insuranceNumber: 'Q987654321' };
const NOTE = 'Zimmer 12 ab Montag frei';

const subOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;

describeInChromium('e-mail about requests, answers and deadlines', () => {
  const smtp = new SmtpCapture();
  const suffix = randomUUID().slice(0, 8);
  const people = { station: `mail-station-${suffix}`, late: `mail-late-${suffix}`, silent: `mail-silent-${suffix}`, prompt: `mail-prompt-${suffix}` };
  const address = (username: string) => `${username}@mail.example`;
  let harness: InboxHarness;

  const mailsTo = (username: string): CapturedMail[] => smtp.mails.filter((mail) => mail.recipients.includes(address(username)));
  const person = async (partyId: string, username: string) => {
    await harness.stack.admin('user', 'create', '--party', partyId, '--username', username, '--password', passwordOf(username), '--email', address(username));
  };
  const tick = async (page: Page) => {
    await page.getByLabel('E-Mails an mich senden').check();
    await page.getByRole('button', { name: 'Einstellung speichern' }).click();
    await page.waitForLoadState();
  };

  beforeAll(async () => {
    await smtp.up();
    harness = await startInboxHarness([LATE, PROMPT], {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Bettenanfrage <noreply@betten.example.org>',
      WEB_PUBLIC_URL: WEB,
      MAIL_POLL_SECONDS: '1',
      MAIL_RETRY_BASE_SECONDS: '1',
      // 6 s before the deadline, which is 14 s after the request: the reminder falls between.
      MAIL_REMINDER_BEFORE_MINUTES: '0.1',
      OVERDUE_SWEEP_SECONDS: '1',
    });
    const clinicParty = async (ik: string) => subOf(await harness.stack.login(harness.clinics.find((clinic) => clinic.ik === ik)!.username));
    await person(subOf(harness.referrerToken), people.station);
    await person(await clinicParty(LATE.ik), people.late);
    await person(await clinicParty(LATE.ik), people.silent);
    await person(await clinicParty(PROMPT.ik), people.prompt);
  }, 240_000);

  afterAll(async () => {
    await harness?.stop();
    await smtp.down();
  });

  it('lets a clinic person turn e-mail on in the inbox and a hospital person on the people page, without script-only controls', async () => {
    const clinicPage = await harness.newPage();
    await harness.logIn(clinicPage, { ...LATE, username: people.late });
    await clinicPage.getByRole('link', { name: 'Benachrichtigungen' }).click();
    await clinicPage.waitForURL(`${harness.baseUrl}/inbox/notifications`);
    expect(await clinicPage.locator('.notifications-state').innerText()).toBe('Sie erhalten keine E-Mail-Benachrichtigungen.');
    expect(await clinicPage.locator('#notifications-address').innerText()).toBe(`An: ${address(people.late)}`);
    await tick(clinicPage);
    await clinicPage.waitForURL(`${harness.baseUrl}/inbox/notifications?notifications=on`);
    expect(await clinicPage.locator('.notifications-state').innerText()).toBe('Sie erhalten E-Mail-Benachrichtigungen.');
    expect(await clinicPage.getByLabel('E-Mails an mich senden').isChecked()).toBe(true);
    expect(await seriousViolations(clinicPage)).toEqual([]);

    const hospitalPage = await harness.newPage();
    await harness.logInToWorkspace(hospitalPage, people.station);
    await hospitalPage.waitForURL(`${harness.baseUrl}/workspace/requests`);
    await hospitalPage.goto(`${harness.baseUrl}/workspace/people`);
    await tick(hospitalPage);
    await hospitalPage.waitForURL(`${harness.baseUrl}/workspace/people?notifications=on`);
    expect(await hospitalPage.locator('.notifications-state').innerText()).toBe('Sie erhalten E-Mail-Benachrichtigungen.');
    expect(await seriousViolations(hospitalPage)).toEqual([]);

    const prompt = await harness.stack.api('PUT', '/api/v1/party/users/me/notifications', {
      token: await harness.stack.login(people.prompt),
      body: { email: true },
    });
    expect([prompt.status, prompt.body]).toEqual([200, { email: true, address: address(people.prompt) }]);
  });

  it('tells the clinics of the request, the hospital of the answer and the overdue clinic, and reminds the late clinic once, with no patient data', async () => {
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const deadline = new Date(Date.now() + 14_000);
    deadline.setUTCMilliseconds(0);
    const bundle = admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: REFERRER_IK, performerIks: [LATE.ik, PROMPT.ik], requestIdentifier: identifier });
    for (const entry of bundle.entry ?? []) {
      const resource = entry.resource as { resourceType?: string; extension?: unknown[]; subscriberId?: string } | undefined;
      if (resource?.resourceType === 'Patient') {
        Object.assign(resource as Patient, { name: [{ family: PATIENT.family, given: [PATIENT.given] }], birthDate: PATIENT.birthDate });
      }
      if (resource?.resourceType === 'Coverage') resource.subscriberId = PATIENT.insuranceNumber;
      if (resource?.resourceType === 'ServiceRequest') {
        resource.extension = [
          { url: `${PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`, valueDateTime: deadline.toISOString().replace('.000Z', '+00:00') },
        ];
      }
    }
    expect((await harness.stack.api('POST', '/api/v2/fhir/Bundle', { token: harness.referrerToken, body: bundle })).status).toBe(202);
    const lateTask = await waitFor(async () => (await harness.taskOf(identifier, LATE.ik).catch(() => undefined))?.id, { what: "the late clinic's Task" });
    const promptTask = await harness.taskOf(identifier, PROMPT.ik);

    await waitFor(async () => (mailsTo(people.prompt).length > 0 && mailsTo(people.late).length > 0) || undefined, { what: "the clinics' mail" });
    const answered = await harness.stack.api('POST', `/api/v1/clinic/tasks/${promptTask.id}/answer`, {
      token: await harness.stack.login(people.prompt),
      body: { businessStatus: 'accepted', note: NOTE },
    });
    expect(answered.status).toBe(200);
    await waitFor(async () => (mailsTo(people.station).length >= 2 && mailsTo(people.late).length >= 2) || undefined, {
      what: 'the answer, the overdue clinic and the reminder',
      timeoutMs: 40_000,
    });
    // A few more rounds of the sweeps and the sender: nothing more may come.
    await new Promise((resolve) => setTimeout(resolve, 3500));

    const subjects = (username: string) => mailsTo(username).map((mail) => mail.subject);
    const number = (taskId: string) => `${taskId.slice(0, 4)}-${taskId.slice(4, 8)}`.toUpperCase();
    expect(subjects(people.late)).toEqual([
      `Neue Aufnahmeanfrage ${number(lateTask!)}`,
      `Erinnerung: Aufnahmeanfrage ${number(lateTask!)} wartet auf Ihre Antwort`,
    ]);
    expect(subjects(people.prompt)[0]).toBe(`Neue Aufnahmeanfrage ${number(promptTask.id)}`);
    expect(subjects(people.station).sort()).toEqual([`Antwort auf Ihre Anfrage ${number(promptTask.id)}`, `Frist abgelaufen: Anfrage ${number(lateTask!)}`]);
    expect(mailsTo(people.silent)).toEqual([]);
    expect(mailsTo(people.late)[1]?.text).toContain(`${WEB}/inbox/tasks/${lateTask}`);
    expect(mailsTo(people.station).find((mail) => mail.subject.startsWith('Frist'))?.text).toContain(`${WEB}/workspace/requests/${lateTask}`);
    expect(mailsTo(people.station).find((mail) => mail.subject.startsWith('Antwort'))?.text).toContain(`${WEB}/workspace/requests/${promptTask.id}`);
    const ours = smtp.mails.filter((mail) => mail.text.includes(lateTask!) || mail.text.includes(promptTask.id));
    expect(ours.length).toBeGreaterThanOrEqual(5);
    for (const mail of ours) {
      for (const datum of [PATIENT.family, PATIENT.given, PATIENT.birthDate, '17.03.1948', PATIENT.insuranceNumber, NOTE, identifier]) {
        expect({ subject: mail.subject, datum, found: mail.raw.includes(datum) || mail.text.includes(datum) || mail.subject.includes(datum) }).toEqual({
          subject: mail.subject,
          datum,
          found: false,
        });
      }
    }
  });
});
