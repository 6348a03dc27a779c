import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { clinicDay } from '../clinic-day';
import { describeInChromium, startInboxHarness, type InboxHarness } from './inbox-harness';

/**
 * The beds page shows what is booked against each count, in Chromium against the whole stack
 * (docs/inbox.md, "Betten"): a request the clinic accepted by hand and the referrer then selected
 * reserves a bed of the day's count, free is what is left, and a day booked past its count says so.
 */
const LINDENHOF = { ik: '513300041', name: 'Rehaklinik Lindenhof', departments: ['2300'] };
// Days to come: counts are published for today or later (docs/api.md, "Bed counts").
const ROOMY_DAY = clinicDay(31);
const FULL_DAY = clinicDay(32);

describeInChromium('booked beds on the beds page', () => {
  let inbox: InboxHarness;
  let clinicToken: string;

  beforeAll(async () => {
    inbox = await startInboxHarness([LINDENHOF]);
    clinicToken = await inbox.stack.login(inbox.clinics[0]!.username);
  }, 180_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  const publish = async (date: string, freeBeds: number) =>
    expect((await inbox.stack.api('PUT', '/api/v1/clinic/capacity', { token: clinicToken, body: { department: '2300', date, freeBeds } })).status).toBe(200);
  const reservedOn = async (date: string) =>
    (await inbox.stack.api<{ items: { reserved: number }[] }>('GET', `/api/v1/clinic/capacity?from=${date}&to=${date}`, { token: clinicToken })).body.items[0]
      ?.reserved;
  /** A request for the day, accepted by the clinic by hand ("Zusage") and then selected by the referrer. */
  const acceptByHandAndSelect = async (date: string) => {
    const { identifier } = await inbox.sendRequest({ occurrenceDate: date });
    const task = await inbox.taskOf(identifier, LINDENHOF.ik);
    const answer = await inbox.stack.api('POST', `/api/v1/clinic/tasks/${task.id}/answer`, { token: clinicToken, body: { businessStatus: 'accepted' } });
    expect(answer.status).toBe(200);
    await inbox.sendRequest({ requestIdentifier: identifier, intent: 'order', orderDetail: 'selected-provider', occurrenceDate: date });
    await waitFor(async () => (await inbox.taskOf(identifier, LINDENHOF.ik)).status === 'in-progress', { what: 'the selection' });
  };
  /** What the page says under the day's number, which is also the input's accessible description. */
  const bookedOn = async (page: Page, date: string) => {
    const input = page.getByLabel(`Freie Betten Orthopädie (2300) am ${date.split('-').reverse().join('.')}`);
    const described = await input.getAttribute('aria-describedby');
    return page.locator(`[id="${described}"]`).innerText();
  };

  it('counts a selection after a hand-given acceptance as reserved, shows what is free, and marks a day booked past its count', async () => {
    await publish(ROOMY_DAY, 2);
    await publish(FULL_DAY, 1);
    await acceptByHandAndSelect(ROOMY_DAY);
    await acceptByHandAndSelect(FULL_DAY);
    await acceptByHandAndSelect(FULL_DAY);
    await waitFor(async () => (await reservedOn(ROOMY_DAY)) === 1 && (await reservedOn(FULL_DAY)) === 2, { what: 'the beds reserved' });

    const page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
    await page.goto(`${inbox.baseUrl}/inbox/beds?from=${clinicDay(30)}&to=${clinicDay(36)}`);

    await expect(bookedOn(page, ROOMY_DAY)).resolves.toBe('vorgemerkt 0, reserviert 1, frei 1');
    await expect(bookedOn(page, FULL_DAY)).resolves.toBe('vorgemerkt 0, reserviert 2, frei 0, überbucht um 1');
    await expect(page.locator('.taken strong').innerText()).resolves.toBe('überbucht um 1');
  });
});
