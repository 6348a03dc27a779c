import { freeBedsItem, parseFreeBedsQuery } from './free-beds';

const TODAY = '2026-12-06';

describe('the query of the free beds referrers read', () => {
  it('takes today or a later calendar date, with or without a department', () => {
    expect(parseFreeBedsQuery({ date: TODAY }, TODAY)).toEqual({ date: TODAY });
    expect(parseFreeBedsQuery({ date: '2026-12-31', department: '2300' }, TODAY)).toEqual({ date: '2026-12-31', department: '2300' });
    expect(parseFreeBedsQuery({ date: '2026-12-31', department: '' }, TODAY)).toEqual({ date: '2026-12-31' });
  });

  it('refuses a day gone, naming today in Berlin', () => {
    expect(() => parseFreeBedsQuery({ date: '2026-12-05' }, TODAY)).toThrow(
      'date 2026-12-05 is in the past: free beds are shown for today (2026-12-06, Europe/Berlin) or later days',
    );
  });

  it.each([
    [{}, 'date is required: an admission date YYYY-MM-DD'],
    [{ date: '2026-02-30' }, 'date must be one calendar date YYYY-MM-DD, got "2026-02-30"'],
    [{ date: '07.12.2026' }, 'date must be one calendar date YYYY-MM-DD, got "07.12.2026"'],
    [{ date: ['2026-12-07', '2026-12-08'] }, 'date must be one calendar date YYYY-MM-DD, got ["2026-12-07","2026-12-08"]'],
    [{ date: '2026-12-07', department: '23' }, 'department must be one department key of 4 digits, e.g. "2300", got "23"'],
    [{ date: '2026-12-07', department: ['2300', '0300'] }, 'department must be one department key of 4 digits, e.g. "2300", got ["2300","0300"]'],
  ])('refuses %j: %s', (query, message) => {
    expect(() => parseFreeBedsQuery(query, TODAY)).toThrow(message);
  });

  it('shows free as the beds page does: published less held and reserved, never below 0', () => {
    const key = { clinicIk: '510000001', departmentCode: '2300', admissionDate: '2026-12-07' };
    expect(freeBedsItem({ ...key, freeBeds: 5, held: 1, reserved: 2 })).toEqual({
      ik: '510000001',
      department: '2300',
      published: 5,
      held: 1,
      reserved: 2,
      free: 2,
    });
    expect(freeBedsItem({ ...key, freeBeds: 1, held: 0, reserved: 3 }).free).toBe(0);
  });
});
