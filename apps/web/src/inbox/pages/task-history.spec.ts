import type { TaskHistoryEntry } from '@bedrequest/contracts';
import { deliveriesBetween } from './task-history';

describe('the deliveries of documents among a page of versions', () => {
  const delivery = (at: string): TaskHistoryEntry => ({ kind: 'documents', at, count: 1, reopened: false });
  const entries: TaskHistoryEntry[] = [
    delivery('2026-11-09T00:00:00Z'),
    { kind: 'answer', at: '2026-11-08T00:00:00Z', businessStatus: 'query', author: { type: 'Organization', ik: '1' } },
    delivery('2026-11-05T00:00:00Z'),
    delivery('2026-11-02T00:00:00Z'),
  ];
  const at = (entries: TaskHistoryEntry[]) => entries.map((entry) => entry.at.slice(0, 10));

  it('puts each delivery on exactly one page: after the version before the page, up to its newest', () => {
    // Versions received on 1, 4, 7 and 10 November; pages of two: [10, 7] and [4, 1].
    const first = deliveriesBetween(entries, { receivedAt: '2026-11-04T00:00:00Z' });
    const second = deliveriesBetween(entries, undefined, { receivedAt: '2026-11-04T00:00:00Z' });
    expect(at(first)).toEqual(['2026-11-09', '2026-11-05']);
    expect(at(second)).toEqual(['2026-11-02']);
  });
});
