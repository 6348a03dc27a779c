import { Prisma } from '../generated/prisma/client';

/**
 * FHIR R4 date search (https://hl7.org/fhir/R4/search.html#date) against an instant such as a
 * Task's lastUpdated. A search value stands for the range its precision spans: `2026` the whole
 * year, `2026-11-22` the whole day, `2026-11-22T10:00Z` that minute, `…T10:00:00.5Z` that tenth of
 * a second. Values without a time zone are read in UTC (the spec leaves the zone of such values to
 * the server). The prefix then compares that range with the instant, which is its own range.
 */

/** The prefixes of search.html#prefix; without one, `eq`. */
export type DatePrefix = 'eq' | 'ne' | 'gt' | 'lt' | 'ge' | 'le' | 'sa' | 'eb';

/**
 * The instants a date condition admits: those from `from` (inclusive) to `before` (exclusive),
 * either bound open, or with `outside` every other instant. At least one bound is always set.
 */
export interface InstantRange {
  from?: Date;
  before?: Date;
  outside?: true;
}

/** What `parseDateCondition` accepts, for error messages. */
export const DATE_SYNTAX = '[eq|ne|gt|ge|lt|le|sa|eb]YYYY[-MM[-DD[Thh:mm[:ss[.fff]][Z|±hh:mm]]]]';

// The dateTime of FHIR R4 (datatypes.html#dateTime), with the time zone optional and seconds
// optional as search allows; the field values are range-checked below.
const DATE_VALUE = /^(eq|ne|gt|lt|ge|le|sa|eb)?(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;

const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** A `_lastUpdated`-style value as the instants it admits, or undefined if it is no valid date. */
export function parseDateCondition(value: string): InstantRange | undefined {
  const match = DATE_VALUE.exec(value);
  if (!match) return undefined;
  const [, prefix = 'eq', year, month, day, hour, minute, second, fraction, zone] = match;
  const range = rangeOf({ year: Number(year), month, day, hour, minute, second, fraction, zone });
  return range && admittedBy(prefix as DatePrefix, range);
}

/** Whether a condition admits an instant: the rule `instantIn` applies in SQL. */
export function admits(condition: InstantRange, instant: Date): boolean {
  const within = (condition.from === undefined || instant >= condition.from) && (condition.before === undefined || instant < condition.before);
  return condition.outside ? !within : within;
}

/**
 * search.html#prefix, for a target that is a single instant t and a search range [start, end):
 * eq "the range of the search value fully contains the range of the target value" → start ≤ t < end;
 * ne its negation; gt "the range above the search value intersects the target" → t ≥ end;
 * lt "the range below … intersects" → t < start; ge is gt or eq → t ≥ start; le is lt or eq → t < end;
 * sa "does not overlap, and the range above contains the target" → t ≥ end (gt, for an instant);
 * eb likewise → t < start (lt, for an instant).
 */
function admittedBy(prefix: DatePrefix, { start, end }: { start: Date; end: Date }): InstantRange {
  switch (prefix) {
    case 'eq':
      return { from: start, before: end };
    case 'ne':
      return { from: start, before: end, outside: true };
    case 'gt':
    case 'sa':
      return { from: end };
    case 'ge':
      return { from: start };
    case 'lt':
    case 'eb':
      return { before: start };
    case 'le':
      return { before: end };
  }
}

interface DateFields {
  year: number;
  month?: string;
  day?: string;
  hour?: string;
  minute?: string;
  second?: string;
  fraction?: string;
  zone?: string;
}

/** The range [start, end) a value's precision spans, or undefined for a field out of range (month 13, 25:00, +15:00). */
function rangeOf(fields: DateFields): { start: Date; end: Date } | undefined {
  const { year } = fields;
  const [month, day, hour, minute, second] = [fields.month ?? '01', fields.day ?? '01', fields.hour ?? '00', fields.minute ?? '00', fields.second ?? '00'].map(
    Number,
  ) as [number, number, number, number, number];
  const offsetMinutes = zoneOffsetMinutes(fields.zone);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59 || offsetMinutes === undefined) {
    return undefined;
  }

  if (fields.month === undefined) return { start: utc(year, 0, 1), end: utc(year + 1, 0, 1) };
  if (fields.day === undefined) return { start: utc(year, month - 1, 1), end: utc(year, month, 1) };
  const dayStart = utc(year, month - 1, day).getTime();
  if (fields.hour === undefined) return { start: new Date(dayStart), end: new Date(dayStart + DAY_MS) };

  const second0 = dayStart + ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000;
  if (fields.second === undefined) return { start: new Date(second0), end: new Date(second0 + MINUTE_MS) };
  if (fields.fraction === undefined) return { start: new Date(second0), end: new Date(second0 + 1000) };
  return { start: new Date(second0 + fractionStartMs(fields.fraction)), end: new Date(second0 + fractionEndMs(fields.fraction)) };
}

/**
 * Instants are served with milliseconds (meta.lastUpdated), so an instant t is admitted where its
 * millisecond is: t ≥ x ⇔ t ≥ ⌈x⌉ and t < x ⇔ t < ⌈x⌉ for whole milliseconds t. `.5` spans
 * [500, 600) ms; `.1234` spans [123.4, 123.5) ms, which holds no whole millisecond: both ends
 * become 124 (the range is empty, as it is for the served instants).
 */
function fractionStartMs(fraction: string): number {
  const whole = Number(fraction.slice(0, 3).padEnd(3, '0'));
  return /[1-9]/.test(fraction.slice(3)) ? whole + 1 : whole;
}

function fractionEndMs(fraction: string): number {
  const whole = Number(fraction.slice(0, 3).padEnd(3, '0'));
  return fraction.length <= 3 ? whole + 10 ** (3 - fraction.length) : whole + 1;
}

/** `Z` or none: 0; `±hh:mm` within ±14:00 (datatypes.html#dateTime); undefined beyond. */
function zoneOffsetMinutes(zone: string | undefined): number | undefined {
  if (zone === undefined || zone === 'Z') return 0;
  const [hours, minutes] = zone.slice(1).split(':').map(Number) as [number, number];
  if (minutes > 59 || hours * 60 + minutes > 14 * 60) return undefined;
  return (zone.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

function daysIn(year: number, month: number): number {
  return utc(year, month, 0).getUTCDate();
}

/** Midnight UTC of a day; the month may overflow into the next year. Years below 100 stay themselves (Date.UTC would read 26 as 1926). */
function utc(year: number, monthIndex: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date;
}

/** A date condition over a timestamptz column, in SQL: the rule `admits` states. */
export function instantIn(column: Prisma.Sql, range: InstantRange): Prisma.Sql {
  const bounds = [
    ...(range.from ? [Prisma.sql`${column} >= ${sqlInstant(range.from)}::timestamptz`] : []),
    ...(range.before ? [Prisma.sql`${column} < ${sqlInstant(range.before)}::timestamptz`] : []),
  ];
  const within = Prisma.join(bounds, ' AND ');
  return range.outside ? Prisma.sql`NOT (${within})` : Prisma.sql`(${within})`;
}

/**
 * An instant as PostgreSQL reads it. toISOString writes years past 9999 as `+010000`, which
 * PostgreSQL takes for a time zone; the range of `_lastUpdated=9999` ends at 10000-01-01.
 */
export function sqlInstant(instant: Date): string {
  return instant.toISOString().replace(/^\+0*/, '');
}
