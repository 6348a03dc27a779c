const DAY_MS = 86_400_000;

/**
 * A clinic's day `offset` days from today, YYYY-MM-DD, today being the calendar date in Europe/Berlin:
 * bed counts are published for today or later days only (docs/api.md, "Bed counts"), so a test
 * that publishes counts takes its dates from here rather than from a calendar that passes.
 */
export function clinicDay(offset: number): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date());
  return new Date(Date.parse(today) + offset * DAY_MS).toISOString().slice(0, 10);
}

/** 2026-12-01 as the inbox and the automatic answers' notes write it: 01.12.2026. */
export function germanDate(day: string): string {
  return day.split('-').reverse().join('.');
}
