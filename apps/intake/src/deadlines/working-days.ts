import Holidays from 'date-holidays';
import type { HolidayRegion, ReferrerSettings } from '@bedrequest/contracts';

export type AnswerDeadlineRule = ReferrerSettings['answerDeadline'];

/** The zone the working days are counted in (docs/api.md, "Answer deadlines"). */
const ZONE = 'Europe/Berlin';

const publicHolidays = new Map<string, ReadonlySet<string>>();

/**
 * The public holidays (`YYYY-MM-DD`) of `region` in `year`, as date-holidays lists them: type
 * `public` only, so 24 and 31 December (listed as `bank` from 14:00) are working days.
 */
function publicHolidaysOf(region: HolidayRegion, year: number): ReadonlySet<string> {
  const key = `${region}:${year}`;
  let days = publicHolidays.get(key);
  if (!days) {
    const [country = 'DE', state] = region.split('-');
    const calendar = state ? new Holidays(country, state, { types: ['public'] }) : new Holidays(country, { types: ['public'] });
    days = new Set(calendar.getHolidays(year).flatMap((holiday) => (holiday.type === 'public' ? [holiday.date.slice(0, 10)] : [])));
    publicHolidays.set(key, days);
  }
  return days;
}

/** The wall-clock date and time of `instant` in Europe/Berlin. */
function berlinParts(instant: Date): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const parts = new Intl.DateTimeFormat('en-GB', {
    timeZone: ZONE,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(instant);
  const part = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((candidate) => candidate.type === type)?.value);
  return { year: part('year'), month: part('month'), day: part('day'), hour: part('hour'), minute: part('minute'), second: part('second') };
}

/** The instant at which Berlin's clocks show the given wall-clock time (the later one's offset where the clocks change). */
function berlinInstant(wall: { year: number; month: number; day: number; hour: number; minute: number; second: number }, ms: number): Date {
  const asUtc = Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second, ms);
  const offsetAt = (instant: number) => {
    const shown = berlinParts(new Date(instant));
    return Date.UTC(shown.year, shown.month - 1, shown.day, shown.hour, shown.minute, shown.second) - Math.floor(instant / 1000) * 1000;
  };
  const first = asUtc - offsetAt(asUtc);
  return new Date(asUtc - offsetAt(first));
}

/**
 * The default answer deadline (docs/api.md, "Answer deadlines"): `workingDays` working days after
 * `receivedAt`, at the same clock time in Europe/Berlin. Saturdays, Sundays and the public holidays
 * of `holidays` (Germany's nationwide ones for `DE`, a state's for `DE-BW` …) are no working days.
 */
export function defaultAnswerDeadline(receivedAt: Date, rule: AnswerDeadlineRule): Date {
  const start = berlinParts(receivedAt);
  const day = new Date(Date.UTC(start.year, start.month - 1, start.day));
  let left = rule.workingDays;
  while (left > 0) {
    day.setUTCDate(day.getUTCDate() + 1);
    const weekday = day.getUTCDay();
    const date = day.toISOString().slice(0, 10);
    if (weekday === 0 || weekday === 6 || publicHolidaysOf(rule.holidays, day.getUTCFullYear()).has(date)) continue;
    left -= 1;
  }
  const wall = { ...start, year: day.getUTCFullYear(), month: day.getUTCMonth() + 1, day: day.getUTCDate() };
  return berlinInstant(wall, receivedAt.getUTCMilliseconds());
}
