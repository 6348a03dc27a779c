/** The list's words for its order, search, new selections and automatic answers (pages/task-list.page.ts, list-routes.ts), in German: part of `texts.list`. */
export const listWorkTexts = {
  /** The column headers' sort links (aria-sort says the order; the link what a click does). */
  sortBy: (column: string, order: string) => `${column}, sortieren: ${order}`,
  sortOrders: { ascending: 'früheste zuerst', descending: 'späteste zuerst', newest: 'neueste zuerst', oldest: 'älteste zuerst', status: 'nach Status' },
  sortDefault: 'Standardsortierung (offene zuerst)',
  sortedBy: {
    occurrence: 'sortiert nach gewünschter Aufnahme, früheste zuerst',
    '-occurrence': 'sortiert nach gewünschter Aufnahme, späteste zuerst',
    deadline: 'sortiert nach Antwortfrist, früheste zuerst',
    '-deadline': 'sortiert nach Antwortfrist, späteste zuerst',
    authored: 'sortiert nach Eingang, älteste zuerst',
    '-authored': 'sortiert nach Eingang, neueste zuerst',
    status: 'sortiert nach Status: neu, beantwortet, ausgewählt, storniert',
  },
  search: 'Suchen',
  searchLabel: 'Anfragenummer, Diagnose oder Zuweiser',
  searchHint: 'z. B. 3F9A-12C0, M16.1, Koxarthrose, Name oder IK des Zuweisers',
  searchClear: 'Suche aufheben',
  searchResult: (text: string, count: number) => `Suche „${text}“: ${count === 1 ? '1 Anfrage' : `${count} Anfragen`}`,
  searchInvalid: 'Die Suche darf höchstens 100 Zeichen lang sein und nur aus einer Zeile bestehen.',
  searchTooBroad:
    'Für diese Sortierung oder Suche sind es zu viele Anfragen. Wählen Sie einen Reiter (z. B. „Neu“), oder suchen Sie nach Anfragenummer oder IK.',
  /** The notice above the list when the referrer selected the clinic since the list was last shown. */
  newSelections: (count: number) => `${count === 1 ? '1 neue Auswahl' : `${count} neue Auswahlen`}: Patient wird aufgenommen`,
  newSelectionBadge: 'Neu ausgewählt',
  automatic: 'automatisch',
};
