/**
 * The canonical JSON of a value: object keys sorted (by UTF-16 code units, at every depth), arrays
 * in their order, no white space. What intake hashes: a bundle's fingerprint (docs/decisions.md,
 * "Requests": "equal means the same JSON once the keys of every object are sorted; array order
 * counts"; requests/bundle-fingerprint.ts) and the audit trail's chain (audit/audit-chain.ts).
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}
