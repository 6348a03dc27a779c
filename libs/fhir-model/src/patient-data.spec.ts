import { ageOn } from './patient-data';

describe("the patient's age", () => {
  it('counts whole years up to the birthday, and reads pseudonymised years and months', () => {
    expect(ageOn('1956-03-15', new Date('2026-03-14T23:00:00Z'))).toBe(69);
    expect(ageOn('1956-03-15', new Date('2026-03-15T00:00:00Z'))).toBe(70);
    expect(ageOn('1956', new Date('2026-01-01T00:00:00Z'))).toBe(70);
    expect(ageOn('1956-07', new Date('2026-06-30T00:00:00Z'))).toBe(69);
  });

  it('has none for a date after today, another format, or no date', () => {
    expect(ageOn('2030-01-01', new Date('2026-01-01T00:00:00Z'))).toBeUndefined();
    expect(ageOn('15.03.1956', new Date())).toBeUndefined();
    expect(ageOn(undefined, new Date())).toBeUndefined();
  });
});
