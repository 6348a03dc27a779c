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
};
