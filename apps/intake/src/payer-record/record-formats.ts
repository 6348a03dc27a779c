import PDFDocument from 'pdfkit';
import type { PayerRecord, RecordEvent, RecordEventKind } from './payer-record';

/** The German name of each event, in the PDF and in the CSV's `event_de` column. */
export const EVENT_NAMES_DE: Record<RecordEventKind, string> = {
  'request-sent': 'Anfrage gesendet',
  supplement: 'Ergänzung (neue Version)',
  asked: 'Klinik angefragt',
  'version-sent': 'Ergänzung an Klinik gesendet',
  answer: 'Antwort der Klinik',
  documents: 'Unterlagen nachgereicht',
  deadline: 'Antwortfrist',
  overdue: 'Frist überschritten',
  selected: 'Klinik ausgewählt',
  cancelled: 'Anfrage an Klinik beendet (Auswahl zurückgenommen, andere Klinik gewählt oder Anfrage zurückgezogen)',
  'ready-for-transfer': 'Patient verlegungsbereit',
};

/** The CSV's columns, in order: times in UTC ISO 8601, Berlin local time beside it for people. */
export const CSV_COLUMNS = ['at_utc', 'at_berlin', 'event', 'event_de', 'clinic_ik', 'version', 'code', 'by', 'note', 'deadline_utc'] as const;

/**
 * The record as CSV (RFC 4180, UTF-8 without BOM, CRLF between records): `#` comment lines first
 * (what the record is about), then the header row and one row per event. No CSV library is among
 * our dependencies, and writing RFC 4180 is short: every field quoted, quotes doubled. A text field
 * that a spreadsheet would take for a formula (starting with = + - @ or a tab) gets a leading `'`
 * (OWASP, "CSV injection"); times and codes never start so.
 */
export function recordCsv(record: PayerRecord): Buffer {
  const comments = headerLines(record).map((line) => `# ${line.replace(/[\r\n]+/g, ' ')}`);
  const rows = record.events.map((event) => {
    const cells: Record<(typeof CSV_COLUMNS)[number], string> = {
      at_utc: event.at,
      at_berlin: berlinTime(event.at),
      event: event.event,
      event_de: EVENT_NAMES_DE[event.event],
      clinic_ik: event.clinic ?? '',
      version: event.version === undefined ? '' : String(event.version),
      code: event.code ?? '',
      by: event.by ?? '',
      note: event.note ?? '',
      deadline_utc: event.deadline ?? '',
    };
    return CSV_COLUMNS.map((column) => field(cells[column]));
  });
  const lines = [...comments, CSV_COLUMNS.map(field).join(','), ...rows.map((row) => row.join(','))];
  return Buffer.from(`${lines.join('\r\n')}\r\n`, 'utf8');
}

function field(value: string): string {
  const safe = /^[=+\-@\t]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The record as PDF (pdfkit, A4): the same lines as the CSV, each event's time in UTC ISO 8601 first. */
export function recordPdf(record: PayerRecord): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: 50,
    // A fixed creation date: the same record made twice differs only by its signature line.
    info: { Title: `Nachweis für Kostenträger ${record.request}`, Creator: 'Bed Occupancy Request Service', CreationDate: new Date(record.madeAt) },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.font('Helvetica-Bold').fontSize(16).text('Nachweis für Kostenträger');
  doc.moveDown(0.5).font('Helvetica').fontSize(10);
  for (const line of headerLines(record)) doc.text(line);
  doc.moveDown().text('Alle Zeiten in UTC (ISO 8601), die Berliner Ortszeit in Klammern.');
  doc.moveDown();
  for (const event of record.events) {
    doc.font('Helvetica-Bold').text(`${event.at} (${berlinTime(event.at)})  ${EVENT_NAMES_DE[event.event]}`);
    doc.font('Helvetica').text(detailsOf(event), { indent: 20 });
    doc.moveDown(0.3);
  }
  doc.end();
  return done;
}

function headerLines(record: PayerRecord): string[] {
  const { name, birthDate, insuranceNumber } = record.patient;
  return [
    `Anfrage: ${record.request}`,
    `Einweisendes Krankenhaus (IK): ${record.referrerIk}`,
    `Patient: ${name ?? '-'}; geboren: ${birthDate ?? '-'}; Versichertennummer: ${insuranceNumber ?? '-'}`,
    `Erstellt: ${record.madeAt}`,
  ];
}

function detailsOf(event: RecordEvent): string {
  return [
    `Ereignis: ${event.event}`,
    event.clinic ? `Klinik (IK): ${event.clinic}` : undefined,
    event.version === undefined ? undefined : `Version: ${event.version}`,
    event.code ? `Code: ${event.code}` : undefined,
    event.by ? `Durch: ${event.by}` : undefined,
    event.deadline ? `Frist: ${event.deadline}` : undefined,
    event.note ? `Notiz: ${event.note}` : undefined,
  ]
    .filter(Boolean)
    .join('; ');
}

const BERLIN = new Intl.DateTimeFormat('de-DE', {
  timeZone: 'Europe/Berlin',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

function berlinTime(iso: string): string {
  return `${BERLIN.format(new Date(iso))} Berlin`;
}
