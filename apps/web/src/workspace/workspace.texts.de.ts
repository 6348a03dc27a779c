import type { BusinessStatus, TaskStatus } from '@bedrequest/contracts';
import { de, type Texts } from '../inbox/texts.de';

/**
 * Every word the hospital's workspace shows, in German: the inbox's words where the pages share them
 * (login, errors, dates), the workspace's own beside them (docs/workspace.md).
 */
export const workspaceDe = {
  ...de,
  appName: 'Reha-Anfragen des Sozialdienstes',
  nav: { ...de.nav, tasks: 'Anfragen' },
  clinicOf: (name: string | undefined, ik: string) => (name ? `${name} (IK ${ik})` : `IK ${ik}`),
  login: {
    ...de.login,
    intro: 'Melden Sie sich mit dem Zugang Ihres Krankenhauses (Sozialdienst) an.',
  },
  errors: {
    ...de.errors,
    notFound: 'Diese Seite gibt es nicht, oder sie gehört nicht zu Ihrem Krankenhaus.',
    backToList: 'Zu den Anfragen',
  },
  hospital: {
    navPeople: 'Personen',
    changedNotice: 'Eine Klinik hat geantwortet; die Seite zeigt den neuen Stand.',
    wrongRole: 'Dieser Zugang gehört keinem Krankenhaus. Kliniken melden sich im Klinik-Posteingang an.',
    list: {
      title: 'Anfragen Ihres Krankenhauses',
      intro: 'Alle Reha-Anfragen Ihres Sozialdienstes, die zuletzt geänderten zuerst. Jede Klinik beantwortet ihre Anfrage für sich.',
      caption: 'Anfragen an Reha-Kliniken, zuletzt geänderte zuerst',
      columns: { request: 'Anfrage', clinics: 'Kliniken und ihre Antworten', changed: 'Zuletzt geändert' },
      requestOf: (when: string) => `Anfrage vom ${when}`,
      filters: 'Anfragen filtern',
      filter: { all: 'Alle', open: 'Offen', answered: 'Beantwortet', selected: 'Ausgewählt', closed: 'Abgeschlossen' },
      emptyFilter: 'Keine Anfragen in dieser Ansicht.',
      empty: 'Ihr Krankenhaus hat noch keine Anfrage gesendet.',
      truncated: (shown: number) => `Es werden die ${shown} zuletzt geänderten Anfragen gezeigt.`,
    },
    request: {
      title: 'Anfrage',
      back: 'Zurück zu den Anfragen',
      sentAt: (when: string) => `Gesendet am ${when}`,
      clinics: 'Kliniken',
      clinicsIntro: 'Jede Klinik nennt Ihnen am Telefon ihre Anfrage-Nr.',
      clinic: 'Klinik',
      number: 'Anfrage-Nr.',
      state: 'Stand',
      answeredAt: 'Letzte Änderung',
      notes: 'Nachrichten der Klinik',
      noNotes: 'Noch keine Nachricht.',
      /** Beside a clinic your rule asked after the deadline (Einstellungen). */
      askedByRule: {
        list: 'Nach Ihrer Regel angefragt (aus Ihrer Klinikliste)',
        registry: 'Nach Ihrer Regel angefragt (nächstgelegene Klinik mit der Fachabteilung)',
      },
      asks: {
        query: 'Die Klinik hat eine Rückfrage gestellt:',
        'more-data-required': 'Die Klinik benötigt weitere Daten:',
      },
    },
    history: {
      heading: 'Verlauf',
      sent: 'Anfrage gesendet',
      changed: 'Neue Version gesendet (Ergänzung, Auswahl, Rücknahme oder Rückzug)',
      answered: 'Antwort der Klinik',
      erased: 'Patientendaten gelöscht',
      by: (who: string) => `von ${who}`,
      empty: 'Noch keine Einträge.',
    },
    erase: {
      action: 'Patientendaten löschen',
      actionsHeading: 'Weitere Schritte',
      title: 'Patientendaten löschen',
      intro: 'Sie löschen die Patientendaten dieser Anfrage endgültig, bei uns und für alle Kliniken, an die sie ging:',
      goes: [
        'alle Versionen der Anfrage mit Patient, Diagnosen, Kostenträger und Hinweisen,',
        'alle nachgereichten Dokumente,',
        'die Nachrichten der Kliniken zu dieser Anfrage,',
        'die interne Fallnummer Ihres Krankenhauses zu dieser Anfrage.',
      ],
      stays:
        'Erhalten bleiben nur Zeitpunkte und Status je Klinik, als Nachweis ohne Patientendaten. Offene Anfragen werden für die Kliniken storniert; reservierte Betten werden freigegeben. Das lässt sich nicht rückgängig machen.',
      confirm: 'Endgültig löschen',
      cancel: 'Abbrechen',
      done: 'Die Patientendaten dieser Anfrage wurden gelöscht.',
    },
    people: {
      title: 'Personen Ihres Krankenhauses',
      intro: 'Wer sich für Ihr Krankenhaus anmeldet. Jede Person hat einen eigenen Zugang; ihre Schritte tragen ihren Namen.',
      notAdministrator: 'Nur die Administratoren Ihres Krankenhauses verwalten die Personen. Bitte wenden Sie sich an sie.',
      caption: 'Die Personen Ihres Krankenhauses',
      columns: { name: 'Name', username: 'Benutzername', email: 'E-Mail', role: 'Rolle', state: 'Status', action: 'Aktion' },
      administrator: 'Administrator',
      member: 'Mitarbeiter',
      active: 'aktiv',
      disabled: 'deaktiviert',
      you: '(Sie)',
      disable: (name: string) => `${name} deaktivieren`,
      disabledNotice: (name: string) => `${name} kann sich nicht mehr anmelden.`,
      addHeading: 'Person hinzufügen',
      username: 'Benutzername',
      usernameHint: 'Buchstaben, Ziffern, „.“, „_“, „@“, „+“ oder „-“; eindeutig über alle Krankenhäuser und Kliniken.',
      password: 'Anfangspasswort',
      passwordHint: '12 bis 256 Zeichen. Geben Sie es der Person persönlich weiter.',
      displayName: 'Name',
      displayNameHint: 'So erscheint die Person im Verlauf einer Anfrage.',
      email: 'E-Mail (optional)',
      makeAdministrator: 'Darf Personen verwalten (Administrator)',
      add: 'Person hinzufügen',
      added: (name: string) => `${name} wurde hinzugefügt und kann sich jetzt anmelden.`,
      errorSummary: 'Die Person wurde nicht hinzugefügt:',
      refused: 'Die Aktion wurde abgelehnt:',
    },
    /** The state of a clinic's Task as the hospital reads it. */
    deadline: {
      due: (when: string) => `Antwort bis ${when}`,
      overdue: (deadline: string) => `Frist überschritten (Antwort war fällig bis ${deadline})`,
    },
    status: {
      requested: 'Angefragt – Antwort ausstehend',
      accepted: 'Zusage',
      rejected: 'Absage',
      'on-hold': 'Rückfrage',
      'in-progress': 'Ausgewählt',
      cancelled: 'Storniert',
      onHold: { query: 'Rückfrage', 'more-data-required': 'Weitere Daten erforderlich' },
    } satisfies Record<TaskStatus, string> & { onHold: Partial<Record<BusinessStatus, string>> },
  },
} satisfies Texts & Record<string, unknown>;

export type WorkspaceTexts = typeof workspaceDe;
