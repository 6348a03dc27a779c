import { mailTextOf, pageOf, shortReferenceOf } from './mail-text';
import { domainOf } from './smtp-transport';

const TASK = '3f9a12c0-7b1d-4e2a-9c3b-5d6e7f8a9b0c';
const WEB = 'https://betten.example.org/';

describe('what a mail says', () => {
  it('names the request by the number the pages show, the Task id in two groups of four', () => {
    expect(shortReferenceOf(TASK)).toBe('3F9A-12C0');
  });

  it("links the clinic's mail to its inbox and the hospital's to its request page", () => {
    expect(pageOf('answer-requested', TASK, WEB)).toBe(`https://betten.example.org/inbox/tasks/${TASK}`);
    expect(pageOf('reminder', TASK, WEB)).toBe(`https://betten.example.org/inbox/tasks/${TASK}`);
    expect(pageOf('answer', TASK, WEB)).toBe(`https://betten.example.org/workspace/requests/${TASK}`);
    expect(pageOf('overdue', TASK, WEB)).toBe(`https://betten.example.org/workspace/requests/${TASK}`);
  });

  it.each([
    ['answer-requested', true, 'Neue Aufnahmeanfrage 3F9A-12C0'],
    ['answer-requested', false, 'Aufnahmeanfrage 3F9A-12C0: neue Version'],
    ['reminder', false, 'Erinnerung: Aufnahmeanfrage 3F9A-12C0 wartet auf Ihre Antwort'],
    ['answer', false, 'Antwort auf Ihre Anfrage 3F9A-12C0'],
    ['overdue', false, 'Frist abgelaufen: Anfrage 3F9A-12C0'],
  ] as const)('%s (new to the clinic: %s): subject "%s", a body of the number, the link and fixed sentences only', (kind, newToClinic, subject) => {
    const mail = mailTextOf(kind, TASK, WEB, { newToClinic });

    expect(mail.subject).toBe(subject);
    expect(mail.text).toContain(pageOf(kind, TASK, WEB));
    // Nothing of the row but the number and the link stands in it.
    expect(mail.text.split('\n').filter((line) => /\d/.test(line) && !line.includes('3F9A-12C0') && !line.includes(TASK))).toEqual([]);
  });

  it('takes the Message-ID domain from MAIL_FROM, with or without a display name', () => {
    expect(domainOf('Bettenanfrage <noreply@betten.example.org>')).toBe('betten.example.org');
    expect(domainOf('noreply@relay.example')).toBe('relay.example');
    expect(domainOf('nobody')).toBe('localhost');
  });
});
