/**
 * The words of what the hospital keeps for itself beside its requests (docs/workspace.md, "Interne
 * Fallnummer", "Entwürfe"): its own case number and drafts, never sent to a clinic.
 */
export const ownDataTexts = {
  caseNumber: {
    section: 'Nur für Ihr Krankenhaus',
    label: 'Interne Fallnummer',
    hint: 'Wird beim Dienst mit der Anfrage gespeichert, aber nie an eine Klinik gesendet. Sie finden die Anfrage damit in der Liste wieder.',
    inList: 'Interne Fallnr.',
    invalid: 'Bitte geben Sie eine Fallnummer aus höchstens 64 Buchstaben, Ziffern, Leerzeichen oder . - / _ : an.',
    notSaved:
      'Die Anfrage wurde gesendet, die interne Fallnummer aber nicht gespeichert. Bitte tragen Sie sie auf der Seite der Anfrage unter „Interne Fallnummer“ ein.',
    none: 'keine',
    save: 'Fallnummer speichern',
    saved: 'Die interne Fallnummer wurde gespeichert.',
    search: {
      label: 'Nach interner Fallnummer suchen',
      button: 'Suchen',
      results: (count: number, caseNumber: string) =>
        count === 1 ? `1 Anfrage mit der internen Fallnummer ${caseNumber}.` : `${count} Anfragen mit der internen Fallnummer ${caseNumber}.`,
      none: (caseNumber: string) => `Keine Anfrage hat die interne Fallnummer ${caseNumber}.`,
      all: 'Alle Anfragen zeigen',
    },
  },
  drafts: {
    nav: 'Entwürfe',
    title: 'Entwürfe',
    intro:
      'Begonnene Anfragen Ihres Krankenhauses, noch nicht gesendet, die zuletzt gespeicherten zuerst. Jede Person Ihres Krankenhauses kann sie öffnen, weiterbearbeiten und senden. Ein Entwurf wird gelöscht, sobald er gesendet ist, und sonst 30 Tage nach dem letzten Speichern.',
    caption: 'Entwürfe, zuletzt gespeicherte zuerst',
    columns: { draft: 'Entwurf', saved: 'Gespeichert', action: 'Aktion' },
    savedBy: (when: string, name?: string) => (name ? `${when} von ${name}` : when),
    untitled: 'Entwurf ohne Angaben',
    delete: (label: string) => `Entwurf „${label}“ löschen`,
    deleted: 'Der Entwurf wurde gelöscht.',
    empty: 'Es gibt keine Entwürfe.',
    save: 'Als Entwurf speichern',
    saved: 'Der Entwurf wurde gespeichert. Sie finden ihn unter „Entwürfe“.',
    notSaved: 'Der Entwurf wurde nicht gespeichert:',
    opened: (when: string) => `Entwurf vom ${when}. „Anfrage senden“ sendet ihn und löscht den Entwurf.`,
    gone: 'Diesen Entwurf gibt es nicht mehr: Er wurde gesendet, gelöscht oder ist abgelaufen.',
    label: (parts: readonly string[]) => parts.join(' · '),
    admission: (date: string) => `Aufnahme ab ${date}`,
    born: (year: string) => `geb. ${year}`,
  },
};
