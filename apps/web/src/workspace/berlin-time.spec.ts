import { berlinDateTime, berlinLocal } from './berlin-time';

describe("the hospital's wall clock", () => {
  it('gives a datetime-local value its Berlin offset, in winter and in summer, and reads it back', () => {
    expect(berlinDateTime('2026-12-09T16:00')).toBe('2026-12-09T16:00:00+01:00');
    expect(berlinDateTime('2027-07-01T08:30')).toBe('2027-07-01T08:30:00+02:00');
    expect(berlinLocal('2026-12-09T15:00:00Z')).toBe('2026-12-09T16:00');
    expect(berlinLocal('2027-07-01T08:30:00+02:00')).toBe('2027-07-01T08:30');
  });

  it('takes nothing else', () => {
    expect(berlinDateTime('2026-12-09')).toBeUndefined();
    expect(berlinDateTime('morgen')).toBeUndefined();
    expect(berlinLocal('never')).toBeUndefined();
    expect(berlinLocal(undefined)).toBeUndefined();
  });
});
