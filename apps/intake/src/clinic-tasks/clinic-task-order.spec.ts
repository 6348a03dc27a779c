import { answeredAutomatically } from './automatic-answers';
import { compareRows, SQL_ORDERS } from './clinic-task-order';
import { listSearchOf, matchesText } from './clinic-task-search';
import type { SummaryRow } from './clinic-task-summary';

const row = (id: string, fields: Partial<SummaryRow>): SummaryRow =>
  ({
    id,
    status: 'requested',
    authored_on: new Date('2026-11-01T10:00:00Z'),
    last_modified: new Date('2026-11-01T10:00:00Z'),
    referrer_ik: '260000001',
    requester_name: 'Akutklinik Mitte',
    diagnosis_code: 'S72.01',
    diagnosis_display: 'Schenkelhalsfraktur',
    occurrence_date: null,
    ...fields,
  }) as SummaryRow;

const a = row('00000000-0000-4000-8000-00000000000a', { occurrence_date: '2026-12-10', status: 'accepted', authored_on: new Date('2026-11-03T10:00:00Z') });
const b = row('00000000-0000-4000-8000-00000000000b', { occurrence_date: '2026-12-01', status: 'in-progress', authored_on: new Date('2026-11-02T10:00:00Z') });
const c = row('00000000-0000-4000-8000-00000000000c', { last_modified: new Date('2026-11-05T10:00:00Z') });
const ids = (rows: SummaryRow[]) => rows.map((found) => found.id.at(-1));

describe('the list orders', () => {
  it('sorts by admission date either way with undated rows last, by arrival, and by list state', () => {
    expect(ids([a, b, c].sort(compareRows('occurrence')))).toEqual(['b', 'a', 'c']);
    expect(ids([a, b, c].sort(compareRows('-occurrence')))).toEqual(['a', 'b', 'c']);
    expect(ids([a, b, c].sort(compareRows('authored')))).toEqual(['c', 'b', 'a']);
    expect(ids([a, b, c].sort(compareRows('-authored')))).toEqual(['a', 'b', 'c']);
    expect(ids([b, a, c].sort(compareRows('status')))).toEqual(['c', 'a', 'b']);
    expect(ids([a, b, c].sort(compareRows(undefined)))).toEqual(['c', 'b', 'a']);
  });

  it('writes a cursor naming its order, and reads none of another order', () => {
    const cursor = SQL_ORDERS.authored.keys.encode(SQL_ORDERS.authored.keyOf(a));
    expect(SQL_ORDERS.authored.keys.decode(cursor)).toEqual(['authored', '2026-11-03T10:00:00.000Z', a.id]);
    expect(SQL_ORDERS['-authored'].keys.decode(cursor)).toBeUndefined();
    expect(SQL_ORDERS.default.keys.decode(cursor)).toBeUndefined();
    expect(SQL_ORDERS.status.keyOf(b)).toEqual(['status', 2, b.last_modified.toISOString(), b.id]);
  });
});

describe('the list search', () => {
  it('reads a request number as a range of Task ids, nine digits as an IK, anything else as text', () => {
    expect(listSearchOf('3F9A-12C0')).toEqual({ kind: 'number', low: '3f9a12c0-0000-0000-0000-000000000000', high: '3f9a12c0-ffff-ffff-ffff-ffffffffffff' });
    expect(listSearchOf(' 3f9a ')).toMatchObject({ kind: 'number', low: '3f9a0000-0000-0000-0000-000000000000' });
    expect(listSearchOf('260000001')).toEqual({ kind: 'ik', ik: '260000001' });
    expect(listSearchOf('Cafe')).toEqual({ kind: 'text', text: 'cafe' });
    expect(listSearchOf('S72.0')).toEqual({ kind: 'text', text: 's72.0' });
  });

  it('matches a diagnosis code from its start, dots aside, its text, the referrer by name or IK', () => {
    const text = (q: string) => (listSearchOf(q) as { text: string }).text;
    expect(matchesText(a, text('s720'))).toBe(true);
    expect(matchesText(a, text('S72.01'))).toBe(true);
    expect(matchesText(a, text('72.01'))).toBe(false);
    expect(matchesText(a, text('halsfraktur'))).toBe(true);
    expect(matchesText(a, text('akutklinik'))).toBe(true);
    expect(matchesText(a, text('Reha Nord'))).toBe(false);
  });
});

describe('an automatic answer on the list', () => {
  const at = '2026-11-21T10:00:00.000Z';
  it('is the latest answer while the service wrote the latest note and nothing changed the Task after it', () => {
    expect(answeredAutomatically([{ time: at, author: { source: 'automatic' } }], new Date(at))).toBe(true);
    expect(answeredAutomatically([{ time: at, author: { source: 'automatic' } }], new Date('2026-11-21T10:05:00Z'))).toBe(false);
    expect(answeredAutomatically([{ time: at, author: { source: 'clinic' } }], new Date(at))).toBe(false);
    expect(answeredAutomatically([{ time: at }], new Date(at))).toBe(false);
    expect(answeredAutomatically(null, new Date(at))).toBe(false);
  });
});
