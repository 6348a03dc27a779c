import { ParticipatingClinics } from './participating-clinics';

describe('ParticipatingClinics', () => {
  const directoryWith = (lists: string[][]) => {
    const calls = { count: 0 };
    return {
      calls,
      list: async () => {
        const iks = lists[Math.min(calls.count, lists.length - 1)]!;
        calls.count++;
        return { items: iks.map((ik) => ({ ik, name: ik, departments: [] })) };
      },
    };
  };

  it('answers known clinics from its cache', async () => {
    const directory = directoryWith([['510000001', '510000002']]);
    const clinics = new ParticipatingClinics(directory, 5_000, () => 0);
    expect(await clinics.unknown(['510000001'])).toEqual([]);
    expect(await clinics.unknown(['510000002', '510000001'])).toEqual([]);
    expect(directory.calls.count).toBe(1);
  });

  it('looks again before refusing an IK it does not know, so a clinic registered a moment ago is accepted', async () => {
    const directory = directoryWith([['510000001'], ['510000001', '510000009']]);
    const clinics = new ParticipatingClinics(directory, 5_000, () => 0);
    expect(await clinics.unknown(['510000001'])).toEqual([]);
    expect(await clinics.unknown(['510000009'])).toEqual([]);
    expect(await clinics.unknown(['599999999', '510000001'])).toEqual(['599999999']);
    expect(directory.calls.count).toBe(3);
  });

  it('reloads after its time to live', async () => {
    let now = 0;
    const directory = directoryWith([['510000001'], []]);
    const clinics = new ParticipatingClinics(directory, 5_000, () => now);
    expect(await clinics.unknown(['510000001'])).toEqual([]);
    now = 6_000;
    expect(await clinics.unknown(['510000001'])).toEqual(['510000001']);
    expect(directory.calls.count).toBe(2);
  });
});
