/** A size in bytes as the page says it: MB of 1024 × 1024 bytes, rounded down to a tenth ("7,4 MB"), as a file manager shows it. */
export function megabytes(bytes: number): string {
  const tenths = Math.floor((bytes / (1024 * 1024)) * 10) / 10;
  return `${tenths.toLocaleString('de-DE', { minimumFractionDigits: 1, maximumFractionDigits: 1 })} MB`;
}

/** The words of sending documents for a request (docs/workspace.md, "Unterlagen senden"). */
export const documentsTexts = {
  action: 'Unterlagen senden',
  title: 'Unterlagen senden',
  back: 'Zurück zur Anfrage',
  intro:
    'Senden Sie den Kliniken dieser Anfrage Unterlagen zur Patientin oder zum Patienten, z. B. einen Arztbrief, Befunde oder den Medikationsplan. Die Kliniken sehen sie bei der Anfrage.',
  limits: (perFile: number, total: number, files: number) =>
    `Erlaubt sind PDF-, PNG- und JPEG-Dateien, bis zu ${files} auf einmal: jede Datei höchstens ${megabytes(perFile)}, alle zusammen höchstens ${megabytes(total)}.`,
  limitsWhy: 'Der Dienst nimmt eine Sendung bis 10 MB an; beim Senden werden Dateien um ein Drittel größer. Eine Anfrage nimmt bis zu 50 Dokumente auf.',
  document: (n: number) => `Dokument ${n}`,
  file: 'Datei (PDF, PNG oder JPEG)',
  kind: 'Art des Dokuments',
  kindHint: 'Wählen Sie aus der Liste oder schreiben Sie selbst, z. B. Arztbrief.',
  kinds: ['Arztbrief', 'Entlassungsbrief', 'Befund', 'Laborbefund', 'Röntgenbefund', 'Medikationsplan', 'Pflegebericht', 'Sozialbericht', 'Wundbericht'],
  send: 'Unterlagen senden',
  cancel: 'Abbrechen',
  sent: 'Die Unterlagen wurden gesendet. Die Kliniken dieser Anfrage sehen sie bei der Anfrage.',
  errorSummary: 'Die Unterlagen wurden nicht gesendet. Bitte prüfen Sie:',
  refused: 'Der Dienst hat die Unterlagen nicht angenommen:',
  refusedStatus: {
    409: 'Die Anfrage nimmt keine weiteren Unterlagen auf (höchstens 50 Dokumente und 64 MB je Anfrage), oder es lässt sich für sie nichts mehr senden.',
    413: 'Die Sendung ist größer als 10 MB.',
  } as Record<number, string>,
  closed: 'Für diese Anfrage lassen sich keine Unterlagen mehr senden: sie ist zurückgezogen oder ihre Patientendaten sind gelöscht.',
  errors: {
    none: 'Bitte wählen Sie mindestens eine Datei.',
    type: 'Diese Datei ist weder PDF noch PNG noch JPEG. Bitte wählen Sie eine solche Datei.',
    size: (limit: number) => `Diese Datei ist größer als ${megabytes(limit)}. Bitte wählen Sie eine kleinere Datei.`,
    total: (limit: number) => `Mit dieser Datei sind die Dateien zusammen größer als ${megabytes(limit)}. Bitte senden Sie sie in mehreren Schritten.`,
    kind: 'Bitte geben Sie an, was das Dokument ist (z. B. Arztbrief).',
    kindLength: (max: number) => `Bitte fassen Sie die Art des Dokuments in höchstens ${max} Zeichen.`,
    kindWithoutFile: 'Bitte wählen Sie zu dieser Art eine Datei oder leeren Sie das Feld.',
    form: 'Das Formular kam nicht vollständig an. Bitte wählen Sie die Dateien noch einmal.',
  },
};
