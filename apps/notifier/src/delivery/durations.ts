const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `250ms`, `5s`, `2m`, `1.5h`, `7d` → milliseconds. */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(text.trim());
  if (!match) throw new Error(`"${text}" is not a duration such as 500ms, 5s, 2m, 1h or 7d`);
  return Math.round(Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS]);
}

/** `5s,30s,2m` → [5000, 30000, 120000]; an empty text is an empty list. */
export function parseDurationList(text: string): number[] {
  return text.trim() === '' ? [] : text.split(',').map(parseDuration);
}
