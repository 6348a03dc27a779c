/** The words of asking further clinics (docs/workspace.md, "Weitere Kliniken anfragen"). */
export const moreClinicsTexts = {
  action: 'Weitere Kliniken anfragen',
  title: 'Weitere Kliniken anfragen',
  intro:
    'Die Anfrage geht zusätzlich an die Kliniken, die Sie hier auswählen, so wie sie zuletzt gesendet wurde. Die bisher angefragten Kliniken bleiben angefragt; ihre Antworten bleiben, wie sie sind.',
  asked: 'Bereits angefragt',
  choose: 'Weitere Kliniken für diese Fachrichtung',
  hint: 'Freie Betten zeigen nur Kliniken, die sie für Zuweiser freigeben, für das gewünschte Aufnahmedatum.',
  none: 'Keine weitere teilnehmende Klinik bietet diese Fachrichtung an.',
  send: 'Ausgewählte Kliniken anfragen',
  cancel: 'Abbrechen',
  noneTicked: 'Bitte wählen Sie mindestens eine weitere Klinik.',
  errorSummary: 'Die Anfrage wurde nicht gesendet. Bitte prüfen Sie:',
  refused: 'Der Dienst hat die Anfrage abgelehnt:',
  done: 'Die weiteren Kliniken wurden angefragt. Sie erscheinen in der Liste der Kliniken, sobald der Dienst sie angefragt hat.',
  closed: 'Weitere Kliniken lassen sich nur anfragen, solange die Anfrage offen und keine Klinik ausgewählt ist.',
  /** On the request's page, beside an overdue or declining clinic. */
  prompt: (clinic: string, why: 'overdue' | 'declined') =>
    why === 'overdue' ? `${clinic} hat nicht innerhalb der Frist geantwortet.` : `${clinic} hat abgesagt.`,
};
