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
    changedNotice: 'Eine Klinik hat geantwortet; die Seite zeigt den neuen Stand.',
    wrongRole: 'Dieser Zugang gehört keinem Krankenhaus. Kliniken melden sich im Klinik-Posteingang an.',
    list: {
      title: 'Anfragen Ihres Krankenhauses',
      intro: 'Alle Reha-Anfragen Ihres Sozialdienstes, die zuletzt geänderten zuerst. Jede Klinik beantwortet ihre Anfrage für sich.',
      caption: 'Anfragen an Reha-Kliniken, zuletzt geänderte zuerst',
      columns: { request: 'Anfrage', clinics: 'Kliniken und ihre Antworten', changed: 'Zuletzt geändert' },
      requestOf: (when: string) => `Anfrage vom ${when}`,
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
      asks: {
        query: 'Die Klinik hat eine Rückfrage gestellt:',
        'more-data-required': 'Die Klinik benötigt weitere Daten:',
      },
    },
    erase: {
      action: 'Patientendaten löschen',
      actionsHeading: 'Weitere Schritte',
      title: 'Patientendaten löschen',
      intro: 'Sie löschen die Patientendaten dieser Anfrage endgültig, bei uns und für alle Kliniken, an die sie ging:',
      goes: [
        'alle Versionen der Anfrage mit Patient, Diagnosen, Kostenträger und Hinweisen,',
        'alle nachgereichten Dokumente,',
        'die Nachrichten der Kliniken zu dieser Anfrage.',
      ],
      stays:
        'Erhalten bleiben nur Zeitpunkte und Status je Klinik, als Nachweis ohne Patientendaten. Offene Anfragen werden für die Kliniken storniert; reservierte Betten werden freigegeben. Das lässt sich nicht rückgängig machen.',
      confirm: 'Endgültig löschen',
      cancel: 'Abbrechen',
      done: 'Die Patientendaten dieser Anfrage wurden gelöscht.',
    },
    /** The state of a clinic's Task as the hospital reads it. */
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
