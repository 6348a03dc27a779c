import { appendedHistory, HISTORY_LIMIT, historyOf, type StoredHistoryEntry } from './task-history';
import type { TaskNote } from './task-resource';

const IK = '510000001';
const anna = { source: 'clinic', user: 'u-anna', name: 'Anna Aufnahme' } as const;
const bernd = { source: 'clinic', user: 'u-bernd' } as const;

describe('historyOf', () => {
  it('puts each note under the answer it came with, newest first, and names who gave each answer', () => {
    const notes: TaskNote[] = [
      { text: 'Ist die Patientin mobil?', time: '2026-11-22T11:00:00.000Z', author: anna },
      { text: 'Kein Bett mehr frei', time: '2026-11-22T12:00:00.000Z', author: bernd },
    ];
    const stored: StoredHistoryEntry[] = [
      { kind: 'request', at: '2026-11-22T09:00:00.000Z', action: 'answer-requested', status: 'requested', version: 1 },
      { kind: 'answer', at: '2026-11-22T10:00:00.000Z', businessStatus: 'accepted', author: anna },
      { kind: 'answer', at: '2026-11-22T11:00:00.000Z', businessStatus: 'query', author: anna, note: 0 },
      { kind: 'answer', at: '2026-11-22T12:00:00.000Z', businessStatus: 'declined', author: bernd, note: 1 },
      { kind: 'answer', at: '2026-11-22T12:30:00.000Z', businessStatus: 'declined', author: { source: 'automatic' } },
    ];
    expect(historyOf(notes, stored, IK)).toEqual([
      { kind: 'answer', at: '2026-11-22T12:30:00.000Z', businessStatus: 'declined', author: { type: 'Organization', ik: IK } },
      {
        kind: 'answer',
        at: '2026-11-22T12:00:00.000Z',
        businessStatus: 'declined',
        note: 'Kein Bett mehr frei',
        author: { type: 'Practitioner', user: 'u-bernd' },
      },
      {
        kind: 'answer',
        at: '2026-11-22T11:00:00.000Z',
        businessStatus: 'query',
        note: 'Ist die Patientin mobil?',
        author: { type: 'Practitioner', user: 'u-anna', display: 'Anna Aufnahme' },
      },
      {
        kind: 'answer',
        at: '2026-11-22T10:00:00.000Z',
        businessStatus: 'accepted',
        author: { type: 'Practitioner', user: 'u-anna', display: 'Anna Aufnahme' },
      },
      { kind: 'request', at: '2026-11-22T09:00:00.000Z', action: 'answer-requested', status: 'requested', version: 1 },
    ]);
  });

  it('shows the notes no kept answer names (stored before answers were kept) as notes of their own, older than the rest', () => {
    const notes: TaskNote[] = [
      { text: 'Rückfrage', time: '2026-11-01T10:00:00.000Z' },
      { text: 'Zusage', time: '2026-11-02T10:00:00.000Z', author: anna },
    ];
    expect(historyOf(notes, [], IK)).toEqual([
      { kind: 'note', at: '2026-11-02T10:00:00.000Z', note: 'Zusage', author: { type: 'Practitioner', user: 'u-anna', display: 'Anna Aufnahme' } },
      { kind: 'note', at: '2026-11-01T10:00:00.000Z', note: 'Rückfrage' },
    ]);
    const later: StoredHistoryEntry[] = [{ kind: 'documents', at: '2026-11-03T10:00:00.000Z', count: 2, reopened: false }];
    expect(historyOf(notes, later, IK).map((entry) => entry.kind)).toEqual(['documents', 'note', 'note']);
  });

  it('shows the overdue mark with the deadline that passed, where it came among the answers', () => {
    const stored: StoredHistoryEntry[] = [
      { kind: 'request', at: '2026-11-22T09:00:00.000Z', action: 'answer-requested', status: 'requested', version: 1 },
      { kind: 'overdue', at: '2026-11-24T09:00:30.000Z', deadline: '2026-11-24T09:00:00.000Z' },
      { kind: 'answer', at: '2026-11-24T10:00:00.000Z', businessStatus: 'declined', author: anna },
    ];
    expect(historyOf([], stored, IK)).toEqual([
      {
        kind: 'answer',
        at: '2026-11-24T10:00:00.000Z',
        businessStatus: 'declined',
        author: { type: 'Practitioner', user: 'u-anna', display: 'Anna Aufnahme' },
      },
      { kind: 'overdue', at: '2026-11-24T09:00:30.000Z', deadline: '2026-11-24T09:00:00.000Z' },
      { kind: 'request', at: '2026-11-22T09:00:00.000Z', action: 'answer-requested', status: 'requested', version: 1 },
    ]);
  });
});

describe('appendedHistory', () => {
  it(`keeps the newest ${HISTORY_LIMIT} entries`, () => {
    let history: StoredHistoryEntry[] = [];
    for (let count = 1; count <= HISTORY_LIMIT + 5; count++) {
      history = appendedHistory(history, { kind: 'documents', at: new Date(count * 1000).toISOString(), count, reopened: false });
    }
    expect(history).toHaveLength(HISTORY_LIMIT);
    expect(history[0]).toMatchObject({ count: 6 });
    expect(history.at(-1)).toMatchObject({ count: HISTORY_LIMIT + 5 });
  });
});
