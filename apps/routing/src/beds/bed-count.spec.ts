import { InvalidBedCountError, availableBeds, clinicToday, isCalendarDate, parseFreeBeds, parsePublishableDate, sameBed } from './bed-count';

describe('bed count rules', () => {
  it('counts held and reserved beds against the published free beds', () => {
    expect(availableBeds({ freeBeds: 3, held: 1, reserved: 1 })).toBe(1);
    expect(availableBeds({ freeBeds: 2, held: 1, reserved: 1 })).toBe(0);
  });

  it('shows none available when the clinic lowered its count below what is booked, taking nothing back', () => {
    expect(availableBeds({ freeBeds: 1, held: 2, reserved: 1 })).toBe(0);
  });

  it('tells beds apart by clinic, department and admission date', () => {
    const bed = { clinicIk: '510000001', departmentCode: '2300', admissionDate: '2026-12-01' };
    expect(sameBed(bed, { ...bed })).toBe(true);
    expect(sameBed(bed, { ...bed, admissionDate: '2026-12-02' })).toBe(false);
    expect(sameBed(bed, { ...bed, departmentCode: '0300' })).toBe(false);
    expect(sameBed(bed, { ...bed, clinicIk: '510000002' })).toBe(false);
  });

  it('accepts calendar dates only', () => {
    expect(isCalendarDate('2028-02-29')).toBe(true);
    for (const value of ['2026-02-30', '2026-13-01', '01.12.2026', '2026-12-01T00:00:00Z', '']) expect(isCalendarDate(value)).toBe(false);
  });

  it('accepts whole numbers of free beds from 0, also as command-line text', () => {
    expect(parseFreeBeds(0)).toBe(0);
    expect(parseFreeBeds('12')).toBe(12);
    for (const value of [-1, 1.5, '1.5', 'two', null, 10_001]) expect(() => parseFreeBeds(value)).toThrow(InvalidBedCountError);
  });

  it("takes bed counts for today and later days only, today being the clinic's day in Europe/Berlin", () => {
    expect(parsePublishableDate('2026-12-06', '2026-12-06')).toBe('2026-12-06');
    expect(parsePublishableDate('2027-01-01', '2026-12-06')).toBe('2027-01-01');
    expect(() => parsePublishableDate('2026-12-05', '2026-12-06')).toThrow(
      'date 2026-12-05 is in the past: bed counts are published for today (2026-12-06, Europe/Berlin)',
    );
    // 23:30 UTC on 6 December is already 7 December in Berlin.
    expect(clinicToday(new Date('2026-12-06T23:30:00Z'))).toBe('2026-12-07');
    expect(clinicToday(new Date('2026-06-30T21:59:00Z'))).toBe('2026-06-30');
  });
});
