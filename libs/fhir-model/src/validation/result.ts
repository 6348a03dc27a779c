import type { Issue } from '../outcome';

export interface ValidationOptions {
  /** `{profile_base}` of the profile, code system and naming system URIs (docs/decisions.md: `PROFILE_BASE`). */
  profileBase: string;
  /** The clock the answer deadline's bound is measured from (docs/api.md, "Answer deadlines"); the system clock by default. */
  now?: () => Date;
}

export type ValidationResult<T> = { ok: true; bundle: T } | { ok: false; issues: Issue[] };

/**
 * At most this many issues are returned. A 10 MiB body of `{"__proto__":0}` objects would
 * otherwise turn into an OperationOutcome ten times its size; a sender fixing a real bundle never
 * needs more than the first hundred.
 */
export const MAX_ISSUES = 100;

/** The first `MAX_ISSUES` issues, and a note on how many more there are (`omitted` were never built). */
export function capIssues(issues: readonly Issue[], omitted = 0): Issue[] {
  const further = Math.max(issues.length - MAX_ISSUES, 0) + omitted;
  if (further === 0) return [...issues];
  return [...issues.slice(0, MAX_ISSUES), { severity: 'information', code: 'informational', diagnostics: `${further} further issues are not listed` }];
}

/**
 * The FHIR R4 structure check's findings on elements no other check reported on: a missing
 * `status` or a malformed `id` is said once, in the profile's words ("must be a UUID").
 */
export function notReportedYet(findings: readonly Issue[], reported: readonly Issue[]): Issue[] {
  if (findings.length === 0) return [];
  const expressions = new Set(reported.map((issue) => issue.expression));
  return findings.filter((finding) => !expressions.has(finding.expression));
}
