import { defaultAnswerDeadline } from './working-days';

describe('defaultAnswerDeadline (docs/api.md, "Answer deadlines")', () => {
  it('skips Christmas in Baden-Württemberg and the weekend: received Thursday 24 December 10:00, two working days → Tuesday 29 December 10:00', () => {
    expect(defaultAnswerDeadline(new Date('2026-12-24T09:00:00.000Z'), { workingDays: 2, holidays: 'DE-BW' }).toISOString()).toBe('2026-12-29T09:00:00.000Z');
  });

  it('counts 24 and 31 December as working days: received Wednesday 23 December 10:00, one working day → Thursday 24 December', () => {
    expect(defaultAnswerDeadline(new Date('2026-12-23T09:00:00.000Z'), { workingDays: 1, holidays: 'DE' }).toISOString()).toBe('2026-12-24T09:00:00.000Z');
    expect(defaultAnswerDeadline(new Date('2026-12-30T09:00:00.000Z'), { workingDays: 2, holidays: 'DE' }).toISOString()).toBe('2027-01-04T09:00:00.000Z');
  });

  it("skips a state's own holiday only for that state: Epiphany (6 January) in Bavaria, not nationwide", () => {
    const received = new Date('2027-01-05T15:30:00.000Z');
    expect(defaultAnswerDeadline(received, { workingDays: 1, holidays: 'DE-BY' }).toISOString()).toBe('2027-01-07T15:30:00.000Z');
    expect(defaultAnswerDeadline(received, { workingDays: 1, holidays: 'DE' }).toISOString()).toBe('2027-01-06T15:30:00.000Z');
  });

  it('keeps the clock time in Berlin across the change to summer time: Friday 27 March 2026 09:00 (+01:00), one working day → Monday 30 March 09:00 (+02:00)', () => {
    expect(defaultAnswerDeadline(new Date('2026-03-27T08:00:00.000Z'), { workingDays: 1, holidays: 'DE' }).toISOString()).toBe('2026-03-30T07:00:00.000Z');
  });

  it('skips Easter nationwide: received Good Friday 26 March 2027, one working day → Tuesday 30 March', () => {
    expect(defaultAnswerDeadline(new Date('2027-03-26T08:00:00.000Z'), { workingDays: 1, holidays: 'DE' }).toISOString()).toBe('2027-03-30T07:00:00.000Z');
  });

  it("counts from Berlin's date: received Friday 23:30 in Berlin (22:30 UTC), one working day → Monday 23:30", () => {
    expect(defaultAnswerDeadline(new Date('2026-12-04T22:30:00.000Z'), { workingDays: 1, holidays: 'DE' }).toISOString()).toBe('2026-12-07T22:30:00.000Z');
  });
});
