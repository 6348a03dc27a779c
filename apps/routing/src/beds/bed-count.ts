/**
 * Bed counts: how many admissions a clinic offers through the service for one department on one
 * admission date (docs/parties.md, "Clinics and routing"). The clinic publishes `freeBeds`; the
 * service books against it: a bed is `held` for a request the clinic accepted automatically and
 * `reserved` once the referrer selected the clinic. Pure rules, no I/O.
 */

/** One department of one clinic on one admission date (`YYYY-MM-DD`). */
export interface BedKey {
  readonly clinicIk: string;
  readonly departmentCode: string;
  readonly admissionDate: string;
}

export interface BedCount extends BedKey {
  readonly freeBeds: number;
  readonly held: number;
  readonly reserved: number;
}

export type BedState = 'held' | 'reserved';

/** The bed one Task holds or has reserved. */
export interface HeldBed extends BedKey {
  readonly taskId: string;
  readonly state: BedState;
}

/** A bed count or its input the service refuses, with a one-line reason. */
export class InvalidBedCountError extends Error {
  override name = 'InvalidBedCountError';
}

/** More than any clinic has; a typo such as 1000 instead of 10 is still accepted, 1e6 is not. */
export const MAX_FREE_BEDS = 10_000;

/**
 * Beds still available for automatic acceptance. A clinic may lower its count below what the
 * service already booked (beds went elsewhere): nothing booked is taken back, none is available.
 */
export function availableBeds(count: Pick<BedCount, 'freeBeds' | 'held' | 'reserved'>): number {
  return Math.max(0, count.freeBeds - count.held - count.reserved);
}

export function sameBed(a: BedKey, b: BedKey): boolean {
  return a.clinicIk === b.clinicIk && a.departmentCode === b.departmentCode && a.admissionDate === b.admissionDate;
}

/** A calendar date `YYYY-MM-DD` (2026-02-30 is not one). */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

export function parseAdmissionDate(value: unknown): string {
  if (typeof value !== 'string' || !isCalendarDate(value)) {
    throw new InvalidBedCountError(`date must be a calendar date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * A clinic's day: bed counts are published per admission date as the clinic's staff see the calendar,
 * in Germany (docs/api.md, "Bed counts"), whatever time zone the server runs in.
 */
export const CLINIC_TIME_ZONE = 'Europe/Berlin';

/** Today in the clinic's time zone, YYYY-MM-DD (en-CA formats dates that way). */
export function clinicToday(now: Date = new Date()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: CLINIC_TIME_ZONE, year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}

/**
 * An admission date a count may be published for: today or later in the clinic's time zone. A count
 * for a day gone could book nothing (no request is admitted in the past) and would only mislead.
 */
export function parsePublishableDate(value: unknown, today: string): string {
  const date = parseAdmissionDate(value);
  if (date < today) {
    throw new InvalidBedCountError(`date ${date} is in the past: bed counts are published for today (${today}, ${CLINIC_TIME_ZONE}) or later days`);
  }
  return date;
}

export function parseFreeBeds(value: unknown): number {
  const count = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0 || count > MAX_FREE_BEDS) {
    throw new InvalidBedCountError(`freeBeds must be a whole number from 0 to ${MAX_FREE_BEDS}, got ${JSON.stringify(value)}`);
  }
  return count;
}
