/**
 * E-mail about the party's requests, each person for themself (docs/inbox.md, "Benachrichtigungen";
 * docs/workspace.md, "Personen"): the clinic inbox's page and the section of the hospital's people page.
 */
export const notificationTexts = {
  title: 'Benachrichtigungen',
  heading: 'E-Mail-Benachrichtigungen',
  clinicIntro:
    'Auf Wunsch erhalten Sie eine E-Mail, wenn eine Anfrage an Ihre Klinik eingeht oder ergänzt wird, und eine Erinnerung, bevor ihre Antwortfrist endet.',
  hospitalIntro: 'Auf Wunsch erhalten Sie eine E-Mail, wenn eine Klinik auf eine Anfrage Ihres Krankenhauses antwortet oder ihre Antwortfrist verstreicht.',
  privacy: 'Die E-Mail enthält keine Patientendaten: nur die Nummer der Anfrage und einen Link, unter dem Sie sie nach der Anmeldung lesen.',
  label: 'E-Mails an mich senden',
  address: (address: string) => `An: ${address}`,
  noAddress: 'Für Sie ist keine E-Mail-Adresse hinterlegt. Die Administratoren Ihrer Einrichtung tragen sie ein.',
  save: 'Einstellung speichern',
  on: 'Sie erhalten E-Mail-Benachrichtigungen.',
  off: 'Sie erhalten keine E-Mail-Benachrichtigungen.',
  refused: 'Die Einstellung wurde nicht gespeichert:',
  column: 'E-Mail-Benachrichtigung',
  columnOn: 'an',
  columnOff: 'aus',
};
export type NotificationTexts = typeof notificationTexts;
