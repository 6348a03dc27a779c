/**
 * Safe reads from JSON whose shape is not yet known. The bundle-wide rules (counts, references,
 * selection) run on the raw input next to the schemas, so that every problem is reported in one
 * answer even where a resource also fails its schema.
 */

export type JsonObject = Readonly<Record<string, unknown>>;

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An own property only: inherited names (`constructor`, `toString`) are never read as data. */
export function field(value: unknown, key: string): unknown {
  return isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

export function arrayField(value: unknown, key: string): readonly unknown[] {
  const items = field(value, key);
  return Array.isArray(items) ? items : [];
}

export function stringField(value: unknown, key: string): string | undefined {
  const text = field(value, key);
  return typeof text === 'string' ? text : undefined;
}
