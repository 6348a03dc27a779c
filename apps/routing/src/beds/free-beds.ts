import type { FreeBedsItem } from '@bedrequest/contracts';
import { CLINIC_TIME_ZONE, InvalidBedCountError, availableBeds, isCalendarDate, type BedCount } from './bed-count';

/** The query of `GET /api/v1/kliniken/free-beds`: one admission date, optionally one department. */
export interface FreeBedsQuery {
  readonly date: string;
  readonly department?: string;
}

/**
 * Reads `?date=YYYY-MM-DD[&department=2300]` as routing's `/internal/free-beds` takes it. A day gone
 * is refused as a bed count for it is (docs/api.md, "Bed counts"): nobody is admitted in the past.
 * `today` is the clinic's day (Europe/Berlin), YYYY-MM-DD.
 */
export function parseFreeBedsQuery(query: { date?: unknown; department?: unknown }, today: string): FreeBedsQuery {
  const { date, department } = query;
  if (date === undefined || date === '') throw new InvalidBedCountError('date is required: an admission date YYYY-MM-DD');
  if (typeof date !== 'string' || !isCalendarDate(date)) {
    throw new InvalidBedCountError(`date must be one calendar date YYYY-MM-DD, got ${JSON.stringify(date)}`);
  }
  if (date < today) {
    throw new InvalidBedCountError(`date ${date} is in the past: free beds are shown for today (${today}, ${CLINIC_TIME_ZONE}) or later days`);
  }
  if (department === undefined || department === '') return { date };
  if (typeof department !== 'string' || !/^\d{4}$/.test(department)) {
    throw new InvalidBedCountError(`department must be one department key of 4 digits, e.g. "2300", got ${JSON.stringify(department)}`);
  }
  return { date, department };
}

/** A count as referrers see it: what the clinic's beds page shows, `free` being its "frei" (available). */
export function freeBedsItem(count: BedCount): FreeBedsItem {
  return {
    ik: count.clinicIk,
    department: count.departmentCode,
    published: count.freeBeds,
    held: count.held,
    reserved: count.reserved,
    free: availableBeds(count),
  };
}
