import { chunksOf, identifierNumber, strideCoprimeWith, yearProfile } from './year-profile';

describe('the year profile', () => {
  it('scales what a year brings and keeps the population of parties and clinics', () => {
    const year = yearProfile(1);
    const small = yearProfile(0.01);
    expect(year.requests).toBe(1_000_000);
    expect(small.requests).toBe(10_000);
    expect(small.benchRequests).toBe(1_000);
    expect([small.referrerParties, small.clinics]).toEqual([year.referrerParties, year.clinics]);
  });

  it('refuses a scale or share outside its range', () => {
    expect(() => yearProfile(0)).toThrow(/scale/);
    expect(() => yearProfile(1, 0)).toThrow(/share/);
  });

  it('numbers the identifiers as a permutation, so the bench referrer’s seed-1…seed-n are spread over the year', () => {
    for (const requests of [100, 1_000, 9_973]) {
      const profile = { requests, identifierStride: strideCoprimeWith(requests) };
      const numbers = Array.from({ length: requests }, (_, g) => identifierNumber(profile, g + 1));
      expect(new Set(numbers).size).toBe(requests);
      expect(Math.min(...numbers)).toBe(1);
      expect(Math.max(...numbers)).toBe(requests);
    }
    const profile = yearProfile(0.001);
    const firstTenth = Array.from({ length: profile.requests }, (_, g) => identifierNumber(profile, g + 1))
      .map((n, g) => ({ n, g }))
      .filter(({ n }) => n <= profile.benchRequests);
    // Stored (g) across the whole year, not in its first weeks.
    expect(Math.max(...firstTenth.map(({ g }) => g))).toBeGreaterThan(profile.requests * 0.8);
  });

  it('finds a multiplier coprime with any count', () => {
    expect(strideCoprimeWith(1_000_003)).not.toBe(1_000_003);
    expect(strideCoprimeWith(1_000_003 * 4) % 1_000_003).not.toBe(0);
  });

  it('cuts the year into chunks of whole days that end with the year', () => {
    expect(chunksOf({ days: 365, chunkDays: 30 })).toHaveLength(13);
    expect(chunksOf({ days: 365, chunkDays: 30 }).at(-1)).toEqual({ fromDay: 360, toDay: 365 });
  });
});
