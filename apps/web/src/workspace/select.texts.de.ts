/** The words of selecting a clinic (docs/workspace.md, "Klinik auswählen"). */
export const selectTexts = {
  action: (clinic: string) => `${clinic} auswählen`,
  title: 'Klinik auswählen',
  intro: (clinic: string) =>
    `Sie wählen ${clinic} für die Aufnahme aus. Diese Klinik erhält jetzt die vollständigen Patientendaten; die Anfragen an die anderen Kliniken werden storniert.`,
  masterData: 'Vollständige Patientendaten',
  familyName: 'Familienname *',
  givenNames: 'Vornamen',
  birthDate: 'Vollständiges Geburtsdatum (falls die Anfrage nur das Geburtsjahr enthielt)',
  streetLine: 'Straße und Hausnummer',
  phone: 'Telefon',
  confirm: 'Klinik verbindlich auswählen',
  cancel: 'Abbrechen',
  done: 'Die Klinik ist ausgewählt und hat die vollständigen Patientendaten erhalten. Die anderen Kliniken wurden storniert.',
  notAccepted: 'Auswählen lässt sich nur eine Klinik, die zugesagt hat.',
  errorSummary: 'Die Auswahl wurde nicht gesendet. Bitte prüfen Sie:',
  refused: 'Der Dienst hat die Auswahl abgelehnt:',
  fieldErrors: {
    familyName: 'Bitte geben Sie den Familiennamen an.',
    givenNames: 'Bitte prüfen Sie die Vornamen (höchstens 200 Zeichen je Name).',
    birthDate: 'Bitte geben Sie ein Geburtsdatum an, nicht in der Zukunft.',
    streetLine: 'Bitte prüfen Sie die Anschrift (höchstens 200 Zeichen).',
    phone: 'Bitte geben Sie eine Telefonnummer aus Ziffern an, optional mit +, Leerzeichen, / oder -.',
  } as Record<string, string>,
  otherError: 'Bitte prüfen Sie diese Angabe.',
};
