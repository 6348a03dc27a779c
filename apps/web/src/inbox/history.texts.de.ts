/**
 * The words of a request's history on its page (pages/task-answers.ts, pages/task-history.ts, from
 * the clinic's history of the Task: docs/inbox.md, "A request"), in German: `texts.timeline`.
 */
export const historyTexts = {
  /** An answer's entry: its code, then who gave it (texts.task.answeredBy, answeredAutomatically). */
  answerLabel: 'Antwort',
  /** A note kept from before the answers were kept: its answer is not known. */
  noteOnly: 'Notiz',
  noNote: 'ohne Notiz',
  /** A delivery of documents. */
  documentsHeading: (when: string) => `Dokumente nachgereicht am ${when}`,
  documentsCount: (count: number) => (count === 1 ? '1 Dokument' : `${count} Dokumente`),
  documentsReopened: 'Die Anfrage war mit „Weitere Daten erforderlich“ beantwortet und ist damit wieder zur Antwort offen.',
  /** The status of a Task the documents reopened, until the clinic answers again. */
  reopenedStatus: 'Dokumente nachgereicht – bitte erneut beantworten',
  reopenedNotice: (when: string) =>
    `Der Zuweiser hat am ${when} Dokumente nachgereicht, nachdem Ihre Klinik „Weitere Daten erforderlich“ geantwortet hatte. Bitte beantworten Sie die Anfrage erneut.`,
  reopenedLink: 'Zu den Dokumenten',
  /** The service's overdue mark: the deadline passed without an answer (docs/inbox.md, "A request"). */
  overdue: 'Antwortfrist verstrichen',
  overdueDeadline: (deadline: string) => `Die Antwort war erbeten bis ${deadline}.`,
  /** More entries than the page reads (the newest are shown). */
  older: (shown: number, total: number) => `Die neuesten ${shown} von ${total} Einträgen.`,
};
