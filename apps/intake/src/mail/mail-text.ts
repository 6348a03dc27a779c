/** What a mail is about (migration 0013_mail_outbox): the clinic's two, the hospital's two. */
export type MailKind = 'answer-requested' | 'reminder' | 'answer' | 'overdue';

export interface MailText {
  subject: string;
  text: string;
}

/**
 * The short number both sides quote (docs/inbox.md, "Anfragen"): the Task id's first eight hex
 * digits in two groups of four, as the inbox and the workspace show it beside the request. Not the
 * referrer's identifier, which is the hospital system's and may say more than it should.
 */
export function shortReferenceOf(taskId: string): string {
  const head = taskId.replace(/-/g, '').slice(0, 8).toUpperCase();
  return `${head.slice(0, 4)}-${head.slice(4)}`;
}

/** The page of the Task: the clinic's in its inbox, the hospital's request page (any of its Tasks' ids opens it). */
export function pageOf(kind: MailKind, taskId: string, webPublicUrl: string): string {
  const path = kind === 'answer-requested' || kind === 'reminder' ? `/inbox/tasks/${taskId}` : `/workspace/requests/${taskId}`;
  return new URL(path, webPublicUrl).toString();
}

const FOOTER = [
  '',
  '--',
  'Diese Nachricht enthält keine Patientendaten: Sie finden die Anfrage nach der Anmeldung unter dem Link.',
  'Sie erhalten sie, weil Sie E-Mail-Benachrichtigungen eingeschaltet haben; unter „Benachrichtigungen“ schalten Sie sie aus.',
];

/**
 * The mail's subject and body in German: the request's short reference and the link, nothing else
 * (docs/data-protection.md, "E-mail"), so that neither the relay nor a mailbox holds patient data.
 */
export function mailTextOf(kind: MailKind, taskId: string, webPublicUrl: string, options: { newToClinic?: boolean } = {}): MailText {
  const reference = shortReferenceOf(taskId);
  const link = pageOf(kind, taskId, webPublicUrl);
  const texts: Record<MailKind, [string, string]> = {
    'answer-requested':
      // New to the clinic whichever version it was first sent (asked later by hand or by rule: docs/api.md, "Answer deadlines"); else a supplement.
      options.newToClinic
        ? [`Neue Aufnahmeanfrage ${reference}`, `Ihre Klinik hat eine neue Aufnahmeanfrage erhalten (Anfrage ${reference}).`]
        : [
            `Aufnahmeanfrage ${reference}: neue Version`,
            `Die Aufnahmeanfrage ${reference} an Ihre Klinik liegt in einer neuen Version vor und wartet auf Ihre Antwort.`,
          ],
    reminder: [`Erinnerung: Aufnahmeanfrage ${reference} wartet auf Ihre Antwort`, `Die Antwortfrist der Aufnahmeanfrage ${reference} endet bald.`],
    answer: [`Antwort auf Ihre Anfrage ${reference}`, `Eine Klinik hat auf Ihre Anfrage ${reference} geantwortet.`],
    overdue: [`Frist abgelaufen: Anfrage ${reference}`, `Eine Klinik hat bis zur Frist nicht auf Ihre Anfrage ${reference} geantwortet.`],
  };
  const [subject, line] = texts[kind];
  return { subject, text: ['Guten Tag,', '', line, '', link, ...FOOTER, ''].join('\n') };
}
