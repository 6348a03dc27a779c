import { HOLIDAY_NAMES } from './new-request.texts.de';

/** The words of the hospital's settings (docs/workspace.md, "Einstellungen"). */
export const settingsTexts = {
  nav: 'Einstellungen',
  title: 'Einstellungen',
  deadline: 'Antwortfrist',
  intro:
    'Bis wann Ihr Krankenhaus die Antworten der Kliniken braucht, wenn eine Anfrage keine eigene Frist nennt: so viele Arbeitstage nach dem Senden, zur selben Uhrzeit. Samstage, Sonntage und die gewählten Feiertage zählen nicht. Gilt für alle Personen Ihres Krankenhauses und für neue Anfragen; gesendete behalten ihre Frist.',
  workingDays: 'Arbeitstage bis zur Antwort',
  holidays: 'Feiertage',
  holidayNames: HOLIDAY_NAMES,
  save: 'Speichern',
  saved: 'Die Einstellungen wurden gespeichert. Sie gelten für neue Anfragen.',
  refused: 'Die Einstellungen wurden nicht gespeichert:',
  escalation: {
    legend: 'Weitere Kliniken nach Regel anfragen',
    intro:
      'Ist die Frist einer Anfrage abgelaufen und sind weniger Kliniken als angegeben noch offen (weder abgesagt noch storniert noch überfällig), fragt der Dienst die nächsten Kliniken an: zuerst aus Ihrer Liste, in ihrer Reihenfolge, dann die nächstgelegenen Kliniken mit der Fachabteilung der Anfrage. Jede Klinik wird höchstens einmal angefragt; die Anfrage bleibt in ihrer Version, jede neue Klinik bekommt die Frist ab dem Anfragen.',
    none: 'Keine Regel gesetzt: nach der Frist fragt der Dienst keine weiteren Kliniken an.',
    whenOpenBelow: 'Anfragen, wenn weniger Kliniken offen sind als',
    askNext: 'So viele Kliniken je Schritt anfragen',
    clinics: 'Ihre Kliniken in Reihenfolge (IK-Nummern, optional)',
    clinicsHint: 'Eine 9-stellige IK-Nummer je Zeile, höchstens 50. Gefragt werden nur teilnehmende Kliniken mit der Fachabteilung der Anfrage.',
    origin: 'Von wo aus „nächstgelegen“ gilt',
    originHint:
      'Die Postleitzahl des Gebiets Ihrer Patientinnen und Patienten und ein Punkt darin (Breiten- und Längengrad, z. B. 52,52 und 13,40). Der Dienst schlägt keine Orte nach: er rechnet mit diesem Punkt.',
    postalCode: 'Postleitzahl',
    latitude: 'Breitengrad',
    longitude: 'Längengrad',
    save: 'Regel übernehmen',
    remove: 'Regel entfernen',
    saved: 'Die Regel wurde gespeichert. Sie gilt für alles, was ab jetzt mit Ihren Anfragen geschieht.',
    removed: 'Die Regel wurde entfernt.',
  },
};
