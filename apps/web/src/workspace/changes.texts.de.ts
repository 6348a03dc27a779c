/** The words of revoking a request and withdrawing its selection (docs/workspace.md). */
export const changesTexts = {
  revoke: {
    action: 'Anfrage zurückziehen',
    title: 'Anfrage zurückziehen',
    intro: 'Sie ziehen diese Anfrage bei allen Kliniken zurück:',
    effects: [
      'jede Klinik, an die sie ging, sieht sie als storniert, auch eine ausgewählte;',
      'reservierte Betten werden freigegeben;',
      'für diese Anfrage lässt sich danach nichts mehr senden (für eine neue Suche stellen Sie eine neue Anfrage).',
    ],
    closing: 'Die Anfrage bleibt in Ihrer Liste lesbar. Das lässt sich nicht rückgängig machen.',
    confirm: 'Anfrage endgültig zurückziehen',
    done: 'Die Anfrage wurde zurückgezogen. Die Kliniken sehen sie als storniert.',
  },
  withdraw: {
    action: 'Auswahl zurücknehmen',
    title: 'Auswahl zurücknehmen',
    intro: 'Sie nehmen die Auswahl der Klinik zurück:',
    effects: [
      'die ausgewählte Klinik sieht die Anfrage als storniert, ihr reserviertes Bett wird freigegeben;',
      'die Anfrage ist wieder offen; die anderen Kliniken bleiben storniert, bis Sie sie erneut anfragen.',
    ],
    closing: 'Die Klinik wird sofort benachrichtigt.',
    confirm: 'Auswahl zurücknehmen',
    done: 'Die Auswahl wurde zurückgenommen. Die Anfrage ist wieder offen.',
  },
  refused: (message: string) => `Der Dienst hat den Schritt abgelehnt: ${message}`,
};
