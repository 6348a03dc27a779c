/** The beds page's words (pages/beds.page.ts, beds-routes.ts), in German: `texts.beds`. */
export const bedsTexts = {
  title: 'Freie Betten',
  intro:
    'Melden Sie je Fachabteilung und Tag, wie viele Aufnahmen Sie über den Dienst anbieten. Vorgemerkte und reservierte Betten sind bereits vergeben, frei ist der Rest. Wählt ein Zuweiser Ihre Klinik nach Ihrer Zusage aus, reserviert der Dienst ein Bett, auch wenn keines mehr frei ist: Der Tag ist dann überbucht.',
  range: 'Zeitraum',
  from: 'von',
  to: 'bis',
  show: 'Anzeigen',
  previous: 'Frühere Tage',
  next: 'Spätere Tage',
  date: 'Datum',
  caption: 'Freie Betten je Tag und Fachabteilung',
  free: (department: string, date: string) => `Freie Betten ${department} am ${date}`,
  taken: (held: number, reserved: number, free: number) => `vorgemerkt ${held}, reserviert ${reserved}, frei ${free}`,
  overbooked: (by: number) => `überbucht um ${by}`,
  save: 'Bettenzahlen speichern',
  saved: (count: number) => (count === 1 ? '1 Bettenzahl gespeichert.' : `${count} Bettenzahlen gespeichert.`),
  unchanged: 'Keine Änderung.',
  invalid: 'Bitte geben Sie ganze Zahlen ab 0 ein.',
  /** Short weekday names, Sunday first (Date#getUTCDay): the grid's rows read "Mo 07.12.". */
  weekdays: ['So', 'Mo', 'Di', 'Mi', 'Do', 'Fr', 'Sa'],
  weekdayNames: ['Sonntag', 'Montag', 'Dienstag', 'Mittwoch', 'Donnerstag', 'Freitag', 'Samstag'],
  today: 'heute',
  past: 'vergangen',
  pastCell: (department: string, date: string, value: string) => `${department} am ${date}: ${value}`,
  blankOrZero: {
    title: 'Leer oder 0?',
    blank:
      'Leeres Feld: Sie haben für den Tag keine Zahl gemeldet. Anfragen für diesen Tag beantworten Sie selbst, auch wenn automatische Antworten eingeschaltet sind.',
    zero: '0: Sie haben kein Bett frei. Automatische Antworten sagen für diesen Tag ab.',
    past: 'Vergangene Tage sind nur zu lesen. Eine gemeldete Zahl können Sie ändern, aber nicht wieder leeren.',
  },
  unsaved: 'Sie haben Bettenzahlen eingegeben, aber nicht gespeichert.',
  refused: (saved: number, cell: string, message: string) =>
    `${saved === 0 ? 'Nichts gespeichert.' : saved === 1 ? '1 Bettenzahl gespeichert.' : `${saved} Bettenzahlen gespeichert.`} Nicht gespeichert: ${cell}. Der Dienst antwortet: ${message}`,
  fill: {
    title: 'Eine Zahl für mehrere Tage eintragen',
    legend: 'Fachabteilung, Zeitraum und Zahl',
    intro:
      'Trägt die Zahl für jeden Tag des Zeitraums ein (höchstens 31 Tage), auf Wunsch nur montags bis freitags. Gespeichert werden dabei auch die Zahlen, die Sie oben eingegeben haben.',
    department: 'Fachabteilung',
    from: 'Erster Tag',
    to: 'Letzter Tag',
    count: 'Freie Betten je Tag',
    weekdaysOnly: 'nur Montag bis Freitag',
    submit: 'Für den Zeitraum eintragen',
    invalid: 'Bitte wählen Sie Fachabteilung, ersten und letzten Tag (höchstens 31 Tage) und eine ganze Zahl ab 0.',
    filled: (days: number) => (days === 1 ? 'Für 1 Tag eingetragen.' : `Für ${days} Tage eingetragen.`),
    none: 'Im Zeitraum liegt kein Tag von Montag bis Freitag.',
  },
  noDepartments: 'Für Ihre Klinik sind keine Fachabteilungen hinterlegt.',
  notParticipating: 'Ihre Klinik ist keine teilnehmende Klinik.',
  rangeInvalid: 'Bitte wählen Sie einen Zeitraum von höchstens 31 Tagen.',
  autoAnswer: {
    title: 'Automatische Antworten',
    intro:
      'Eingeschaltet beantwortet der Dienst neue Anfragen an Ihre Klinik selbst aus den Bettenzahlen: Ist am gewünschten Aufnahmetag in der Fachabteilung ein Bett frei, sagt er zu und merkt es vor; ist keines frei, sagt er ab. Anfragen ohne Aufnahmedatum oder für Tage ohne gemeldete Bettenzahl beantworten Sie weiterhin selbst.',
    legend: 'Anfragen automatisch aus den Bettenzahlen beantworten',
    on: 'Ein – der Dienst antwortet aus den Bettenzahlen',
    off: 'Aus – Sie beantworten jede Anfrage selbst',
    save: 'Einstellung speichern',
    saved: (enabled: boolean) =>
      enabled ? 'Gespeichert: Automatische Antworten sind eingeschaltet.' : 'Gespeichert: Automatische Antworten sind ausgeschaltet.',
    choose: 'Bitte wählen Sie „Ein“ oder „Aus“.',
    refused: 'Die Einstellung wurde nicht gespeichert:',
    alsoSaves: 'Bettenzahlen, die Sie oben eingegeben haben, werden mit der Einstellung gespeichert.',
  },
};
