import ms, { type StringValue } from 'ms';

/**
 * `250ms`, `5s`, `2m`, `1.5h`, `7d` (and the other forms of the `ms` package, e.g. `1 week`) →
 * milliseconds. A bare number is refused: in a variable such as WEBHOOK_TIMEOUT=10 it is not
 * clear whether seconds or milliseconds were meant.
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  // ms() takes any string at run time and answers undefined for one it cannot read.
  const milliseconds = Number.isFinite(Number(trimmed)) ? Number.NaN : ms(trimmed as StringValue);
  if (!(milliseconds >= 0)) throw new Error(`"${text}" is not a duration such as 500ms, 5s, 2m, 1h or 7d`);
  return Math.round(milliseconds);
}

/** `5s,30s,2m` → [5000, 30000, 120000]; an empty text is an empty list. */
export function parseDurationList(text: string): number[] {
  return text.trim() === '' ? [] : text.split(',').map(parseDuration);
}

/** A duration in words for messages (`5 days`), in the largest unit it is a whole number of. */
export function describeDuration(value: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
    [1_000, 'second'],
  ];
  for (const [size, unit] of units) {
    if (value >= size && value % size === 0) return `${value / size} ${unit}${value / size === 1 ? '' : 's'}`;
  }
  return `${value} ms`;
}
