/**
 * Reading FHIR JSON the inbox did not validate itself (bundles and documents as intake stored them):
 * each value is checked for its kind before it is used, and what is not there reads as nothing.
 */
export type Json = Record<string, unknown>;

/** An object (not an array, not null), or undefined. */
export function record(value: unknown): Json | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

/** An array, or an empty one. */
export function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** A non-empty string, or undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
