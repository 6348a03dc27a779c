import type { Texts } from './texts.de';

/** Dates, times and durations in the language and time zone of the texts. */
export class Formats {
  private readonly dateTime: Intl.DateTimeFormat;
  private readonly date: Intl.DateTimeFormat;
  private readonly relative: Intl.RelativeTimeFormat;

  constructor(texts: Texts) {
    this.dateTime = new Intl.DateTimeFormat(texts.locale, { timeZone: texts.timeZone, dateStyle: 'medium', timeStyle: 'short' });
    // A FHIR date has no time zone: it is formatted as the calendar day it names.
    this.date = new Intl.DateTimeFormat(texts.locale, { timeZone: 'UTC', dateStyle: 'medium' });
    this.relative = new Intl.RelativeTimeFormat(texts.locale, { numeric: 'auto' });
  }

  /** An instant (ISO 8601) as local date and time. */
  instant(iso: string | undefined): string | undefined {
    if (!iso) return undefined;
    const time = Date.parse(iso);
    return Number.isNaN(time) ? iso : this.dateTime.format(time);
  }

  /** A FHIR date (YYYY-MM-DD, or a dateTime whose day counts). */
  day(fhirDate: string | undefined): string | undefined {
    if (!fhirDate) return undefined;
    const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(fhirDate);
    return match ? this.date.format(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]))) : fhirDate;
  }

  /** How long ago an instant was: "vor 5 Minuten", "gestern". */
  ago(iso: string, now: number = Date.now()): string {
    const seconds = Math.round((Date.parse(iso) - now) / 1000);
    const steps: [Intl.RelativeTimeFormatUnit, number][] = [
      ['second', 60],
      ['minute', 60],
      ['hour', 24],
      ['day', 30],
      ['month', 12],
    ];
    let value = seconds;
    for (const [unit, size] of steps) {
      if (Math.abs(value) < size) return this.relative.format(unit === 'second' ? Math.min(value, 0) : value, unit);
      value = Math.trunc(value / size);
    }
    return this.relative.format(value, 'year');
  }
}
