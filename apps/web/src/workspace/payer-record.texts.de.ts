/**
 * The words of the record for the payer on a request's page (docs/workspace.md, "Nachweis für
 * Kostenträger", "Verlegungsbereit seit").
 */
export const payerRecordTexts = {
  record: {
    title: 'Nachweis für Kostenträger',
    hint: 'Alle Schritte dieser Anfrage mit ihren Zeiten, vom Dienst signiert: für die Krankenkasse oder das Sozialgericht. Die Datei enthält die Patientendaten; speichern Sie sie nur, wo diese hingehören.',
    pdf: 'Nachweis als PDF herunterladen',
    csv: 'Nachweis als CSV herunterladen',
    back: 'Zurück zur Anfrage',
    gone: 'Die Patientendaten dieser Anfrage wurden gelöscht; ein Nachweis lässt sich nicht mehr erstellen.',
  },
  ready: {
    label: 'Verlegungsbereit seit',
    hint: 'Datum und Uhrzeit (deutsche Zeit), seit der die Patientin oder der Patient verlegt werden könnte. Wird nur für den Nachweis gespeichert und nie an eine Klinik gesendet. Leer lassen und speichern entfernt die Angabe.',
    none: 'nicht angegeben',
    current: (when: string) => `Verlegungsbereit seit ${when}.`,
    save: 'Verlegungsbereitschaft speichern',
    saved: 'Die Verlegungsbereitschaft wurde gespeichert.',
    invalid: 'Bitte geben Sie Datum und Uhrzeit vollständig an, zum Beispiel 09.12.2026, 16:00.',
  },
};
