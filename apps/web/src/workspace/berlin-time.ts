/**
 * The wall clock of the hospital's people, Europe/Berlin, and the instants the service keeps: a
 * `datetime-local` field shows and takes the one, the API the other (docs/workspace.md,
 * "Antwortfristen").
 */
const ZONE = 'Europe/Berlin';
const OFFSET = new Intl.DateTimeFormat('en-US', { timeZone: ZONE, timeZoneName: 'longOffset' });
const LOCAL = new Intl.DateTimeFormat('sv-SE', {
  timeZone: ZONE,
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});

/** Berlin's offset from UTC at an instant, in minutes (60 in winter, 120 in summer). */
function offsetMinutes(instant: number): number {
  const name = OFFSET.formatToParts(new Date(instant)).find((part) => part.type === 'timeZoneName')?.value ?? 'GMT';
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return match ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3])) : 0;
}

/** A `datetime-local` value ("2026-12-09T16:00", Berlin time) as a FHIR dateTime with seconds and Berlin's offset; undefined when malformed. */
export function berlinDateTime(local: string): string | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!match) return undefined;
  const wall = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), Number(match[4]), Number(match[5]));
  // The offset at the wall clock's instant, found from the offset near it (they differ only around a change of time).
  const offset = offsetMinutes(wall - offsetMinutes(wall) * 60_000);
  const sign = offset < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
  return `${local}:00${sign}${hours}:${minutes}`;
}

/** An instant as the `datetime-local` value of its Berlin wall clock; undefined when it is none. */
export function berlinLocal(dateTime: string | undefined): string | undefined {
  const instant = dateTime === undefined ? NaN : Date.parse(dateTime);
  return Number.isNaN(instant) ? undefined : LOCAL.format(instant).replace(' ', 'T');
}
