/**
 * The words of the one action a selected clinic has (pages/withdraw-form.ts, docs/inbox.md, "Nach der
 * Auswahl"), in German: `texts.withdraw`.
 */
export const withdrawTexts = {
  heading: 'Zusage zurückziehen',
  intro:
    'Ihre Klinik wurde ausgewählt. Eine Antwort ist jetzt nicht mehr möglich; kann Ihre Klinik den Patienten doch nicht aufnehmen, ziehen Sie Ihre Zusage zurück.',
  warning:
    'Damit wird die Auswahl Ihrer Klinik aufgehoben und das reservierte Bett freigegeben. Der Zuweiser wird sofort benachrichtigt und erhält Ihre Begründung. Das lässt sich nicht rückgängig machen.',
  reason: 'Begründung für den Zuweiser',
  reasonHint: 'Pflicht; höchstens 4000 Zeichen. Der Zuweiser liest sie.',
  submit: 'Weiter zur Bestätigung',
  reasonRequired: 'Bitte schreiben Sie eine Begründung: Ohne sie lässt sich die Zusage nicht zurückziehen.',
  reasonTooLong: 'Die Begründung ist länger als 4000 Zeichen.',
  confirmTitle: 'Zusage zurückziehen bestätigen',
  confirmIntro: 'Bitte prüfen Sie: Ziehen Sie die Zusage zurück, ist Ihre Klinik nicht mehr ausgewählt und der Zuweiser erfährt es sofort.',
  confirm: 'Zusage jetzt zurückziehen',
  edit: 'Begründung ändern',
  cancel: 'Nicht zurückziehen',
  done: 'Ihre Zusage wurde zurückgezogen. Die Auswahl ist aufgehoben; der Zuweiser wurde benachrichtigt.',
  queued: 'Ihre Rücknahme der Zusage wurde übermittelt und erscheint in Kürze.',
  conflict:
    'Die Zusage wurde nicht zurückgezogen: Ihre Klinik ist nicht mehr ausgewählt (die Auswahl wurde aufgehoben, die Anfrage storniert oder zurückgezogen).',
  invalid: 'Die Rücknahme wurde nicht angenommen:',
  staleTitle: 'Die Zusage wurde nicht zurückgezogen: Die Anfrage hat sich geändert, während Sie sie bearbeitet haben.',
  staleRetry: 'Bitte prüfen Sie den aktuellen Stand unten und ziehen Sie die Zusage gegebenenfalls erneut zurück.',
};
