import { admits, parseDateCondition, type DatePrefix } from './search-date';

const at = (iso: string) => new Date(iso);
const MS = 1;

/** Whether `prefix + value` admits the instant, through the parser (the value must parse). */
function matches(prefix: DatePrefix | '', value: string, instant: Date): boolean {
  const condition = parseDateCondition(`${prefix}${value}`);
  if (!condition) throw new Error(`${prefix}${value} did not parse`);
  return admits(condition, instant);
}

/**
 * Each value of each precision with the range [start, end) it spans (FHIR R4 search.html#date;
 * values without a time zone read in UTC).
 */
const RANGES: [precision: string, value: string, start: string, end: string][] = [
  ['year', '2026', '2026-01-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
  ['month', '2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
  ['month (December)', '2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
  ['month (February of a leap year)', '2028-02', '2028-02-01T00:00:00.000Z', '2028-03-01T00:00:00.000Z'],
  ['day', '2026-11-22', '2026-11-22T00:00:00.000Z', '2026-11-23T00:00:00.000Z'],
  ['day (last of the year)', '2026-12-31', '2026-12-31T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
  ['minute', '2026-11-22T10:15Z', '2026-11-22T10:15:00.000Z', '2026-11-22T10:16:00.000Z'],
  ['minute without a time zone (UTC)', '2026-11-22T10:15', '2026-11-22T10:15:00.000Z', '2026-11-22T10:16:00.000Z'],
  ['minute at +01:00', '2026-11-22T10:15+01:00', '2026-11-22T09:15:00.000Z', '2026-11-22T09:16:00.000Z'],
  ['minute at -05:30 (the next UTC day)', '2026-11-22T20:00-05:30', '2026-11-23T01:30:00.000Z', '2026-11-23T01:31:00.000Z'],
  ['second', '2026-11-22T10:15:30Z', '2026-11-22T10:15:30.000Z', '2026-11-22T10:15:31.000Z'],
  ['second at +14:00', '2026-11-22T10:15:30+14:00', '2026-11-21T20:15:30.000Z', '2026-11-21T20:15:31.000Z'],
  ['tenth of a second', '2026-11-22T10:15:30.5Z', '2026-11-22T10:15:30.500Z', '2026-11-22T10:15:30.600Z'],
  ['millisecond', '2026-11-22T10:15:30.123Z', '2026-11-22T10:15:30.123Z', '2026-11-22T10:15:30.124Z'],
  ['millisecond written with four digits', '2026-11-22T10:15:30.1230Z', '2026-11-22T10:15:30.123Z', '2026-11-22T10:15:30.124Z'],
];

/**
 * search.html#prefix for an instant t against a search range [start, end), at four probes: the
 * millisecond before the range, its first, its last, and the first after it.
 */
const EXPECTED: Record<DatePrefix | '', [before: boolean, first: boolean, last: boolean, after: boolean]> = {
  '': [false, true, true, false],
  eq: [false, true, true, false],
  ne: [true, false, false, true],
  gt: [false, false, false, true],
  sa: [false, false, false, true],
  ge: [false, true, true, true],
  lt: [true, false, false, false],
  eb: [true, false, false, false],
  le: [true, true, true, false],
};

describe('FHIR date search over an instant (search.html#date)', () => {
  describe.each(RANGES)('a value of %s precision (%s)', (_precision, value, start, end) => {
    it.each(Object.entries(EXPECTED))('prefix "%s" admits the instants the spec says, at the edges of the range', (prefix, expected) => {
      const probes = [new Date(at(start).getTime() - MS), at(start), new Date(at(end).getTime() - MS), at(end)];

      expect(probes.map((probe) => matches(prefix as DatePrefix | '', value, probe))).toEqual(expected);
    });
  });

  it.each([
    ["lt2026-11-22 excludes the day's first instant", 'lt2026-11-22', '2026-11-22T00:00:00.000Z', false],
    ["lt2026-11-22 includes the day before's last millisecond", 'lt2026-11-22', '2026-11-21T23:59:59.999Z', true],
    ["le2026-11-22 includes the day's last millisecond", 'le2026-11-22', '2026-11-22T23:59:59.999Z', true],
    ['le2026-11-22 excludes the next day', 'le2026-11-22', '2026-11-23T00:00:00.000Z', false],
    ['eq2026-11-22 is the whole day: its first instant', 'eq2026-11-22', '2026-11-22T00:00:00.000Z', true],
    ['eq2026-11-22 is the whole day: noon', 'eq2026-11-22', '2026-11-22T12:00:00.000Z', true],
    ['eq2026-11-22 is the whole day: its last millisecond', 'eq2026-11-22', '2026-11-22T23:59:59.999Z', true],
    ['2026-11-22 without prefix is eq', '2026-11-22', '2026-11-22T17:45:12.345Z', true],
    ['ne2026-11-22 excludes the whole day', 'ne2026-11-22', '2026-11-22T17:45:12.345Z', false],
    ['ne2026-11-22 includes the day before', 'ne2026-11-22', '2026-11-21T23:59:59.999Z', true],
    ['gt2026-11-22 starts with the next day', 'gt2026-11-22', '2026-11-22T23:59:59.999Z', false],
    ['ge2026-11-22 includes the whole day', 'ge2026-11-22', '2026-11-22T00:00:00.000Z', true],
    ['sa2026-11-22 excludes the day itself', 'sa2026-11-22', '2026-11-22T23:59:59.999Z', false],
    ['sa2026-11-22 includes the next day', 'sa2026-11-22', '2026-11-23T00:00:00.000Z', true],
    ['eb2026-11-22 excludes the day itself', 'eb2026-11-22', '2026-11-22T00:00:00.000Z', false],
    ['eb2026-11-22 includes the day before', 'eb2026-11-22', '2026-11-21T23:59:59.999Z', true],
    ['a day is a UTC day: 2026-11-22 excludes 2026-11-22T00:30+01:00', '2026-11-22', '2026-11-22T00:30:00+01:00', false],
    ['an instant at +01:00 is the same instant in UTC', 'eq2026-11-22T00:30:00+01:00', '2026-11-21T23:30:00.000Z', true],
  ])('%s', (_name, value, instant, expected) => {
    expect(matches('', value, at(instant))).toBe(expected);
  });

  it('reads a fraction below a millisecond where the served (millisecond) instants are: .1234 holds none of them', () => {
    const condition = parseDateCondition('eq2026-11-22T10:15:30.1234Z')!;

    expect([at('2026-11-22T10:15:30.123Z'), at('2026-11-22T10:15:30.124Z')].map((instant) => admits(condition, instant))).toEqual([false, false]);
    expect(matches('ge', '2026-11-22T10:15:30.1234Z', at('2026-11-22T10:15:30.124Z'))).toBe(true);
    expect(matches('lt', '2026-11-22T10:15:30.1234Z', at('2026-11-22T10:15:30.123Z'))).toBe(true);
    expect(matches('le', '2026-11-22T10:15:30.1239Z', at('2026-11-22T10:15:30.123Z'))).toBe(true);
    expect(matches('ne', '2026-11-22T10:15:30.1234Z', at('2026-11-22T10:15:30.123Z'))).toBe(true);
  });

  it('keeps years below 100 and ends year 9999 at 10000-01-01', () => {
    expect(parseDateCondition('0026')).toEqual({ from: new Date('0026-01-01T00:00:00.000Z'), before: new Date('0027-01-01T00:00:00.000Z') });
    expect(parseDateCondition('gt9999')).toEqual({ from: new Date(Date.UTC(10000, 0, 1)) });
  });

  it('accepts the 29th of February in a leap year only', () => {
    expect(parseDateCondition('2028-02-29')).toBeDefined();
    expect(parseDateCondition('2026-02-29')).toBeUndefined();
  });

  it.each([
    '',
    'eq',
    '26-11-22',
    '2026-1-22',
    '2026-11-22 10:00',
    '2026-13',
    '2026-00',
    '2026-11-00',
    '2026-11-31',
    '0000',
    '2026-11-22T10',
    '2026-11-22T24:00Z',
    '2026-11-22T10:60Z',
    '2026-11-22T10:00:60Z',
    '2026-11-22T10:00:00.Z',
    '2026-11-22T10:00+15:00',
    '2026-11-22T10:00+14:30',
    '2026-11-22T10:00+01:60',
    '2026-11-22T10:00+0100',
    '2026-11-22Z',
    '2026Z',
    'EQ2026-11-22',
    'xx2026-11-22',
    'ap2026-11-22',
    ' 2026-11-22',
    '2026-11-22,2026-11-23',
  ])('refuses %j', (value) => {
    expect(parseDateCondition(value)).toBeUndefined();
  });
});
