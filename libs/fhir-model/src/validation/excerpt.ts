/**
 * Input quoted in diagnostics is cut to a short excerpt, so that an error body stays small whatever
 * the input: a 3 MB `resourceType` once came back as a 3 MB OperationOutcome. 64 characters show
 * any code, IK number or typical element name whole and the start of a long URI.
 */
export const MAX_EXCERPT_LENGTH = 64;

/** `value` itself if short, else its first 64 characters and its length: `abc…(3145728 characters)`. */
export function excerpt(value: unknown, maxLength = MAX_EXCERPT_LENGTH): string {
  const text = typeof value === 'string' ? value : String(value);
  if (text.length <= maxLength) return text;
  // Never cut a surrogate pair in half: the excerpt must stay well-formed text.
  const cut = isHighSurrogate(text.charCodeAt(maxLength - 1)) ? maxLength - 1 : maxLength;
  return `${text.slice(0, cut)}…(${text.length} characters)`;
}

/** An input value as diagnostics quote it: `'active'`, `'abc…(3145728 characters)'`. */
export function quoted(value: unknown): string {
  return `'${excerpt(value)}'`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}
