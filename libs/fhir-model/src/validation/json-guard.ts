import type { Issue, IssueCode } from '../outcome';
import type { PathSegment } from './fhir-path';
import { issue } from './issues';
import { MAX_ISSUES } from './result';

/**
 * Checks on the raw JSON that no schema knows about, run before the schemas so that hostile or
 * broken input becomes issues and never an exception. The spec sets no such bounds ("Limits":
 * maximum bundle size not shown; docs/decisions.md caps the body at 10 MiB), so these are ours:
 *
 * - 32 levels of nesting: the deepest element the profiles use
 *   (`Bundle.entry[i].resource.name[j]._family.extension[k].valueCode`) is 10 levels deep, so 32
 *   leaves room for any extension a sender adds and still bounds recursion.
 * - 10,000 characters per string: ten times the longest free text we expect (a note of a few
 *   paragraphs); base64 attachment data is exempt, its bound is the 10 MiB body limit.
 * - `__proto__`, `constructor` and `prototype` keys are refused anywhere: no FHIR element has these
 *   names, and code that copies keys around must never meet them.
 * - the number of items of each array (`maxItems`, validation/bounds.ts): an array over its bound is
 *   reported once, and its items are not visited.
 */

export const MAX_NESTING_DEPTH = 32;
export const MAX_STRING_LENGTH = 10_000;
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface JsonGuardOptions {
  /** Strings under these paths may exceed `MAX_STRING_LENGTH` (e.g. base64 attachment data). */
  allowsLongString?: (path: readonly PathSegment[]) => boolean;
  /** How many items the array at `path` may hold. */
  maxItems?: (path: readonly PathSegment[]) => number;
}

export interface JsonInspection {
  /** The first `MAX_ISSUES` findings. */
  issues: Issue[];
  /** How many more there were: hostile input can hold hundreds of thousands. */
  omitted: number;
}

export interface GuardInspection extends JsonInspection {
  /** An array held more items than its bound: nothing more should be checked (its items were not). */
  overBound: boolean;
}

/** U+0000, or a UTF-16 surrogate without its partner. */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this pattern is for
export const UNSTORABLE_TEXT = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function inspectJson(input: unknown, options: JsonGuardOptions = {}): GuardInspection {
  const inspection: GuardInspection = { issues: [], omitted: 0, overBound: false };
  // One path stack for the whole walk, copied only when something is reported.
  const path: PathSegment[] = [];
  const report = (code: IssueCode, diagnostics: string) => {
    if (inspection.issues.length < MAX_ISSUES) inspection.issues.push(issue(code, diagnostics, [...path]));
    else inspection.omitted++;
  };

  const visit = (value: unknown, depth: number): void => {
    if (typeof value === 'string') {
      if (value.length > MAX_STRING_LENGTH && !options.allowsLongString?.(path)) {
        report('too-long', `string of ${value.length} characters exceeds the limit of ${MAX_STRING_LENGTH}`);
      }
      // PostgreSQL cannot store U+0000 or half of a surrogate pair: such a bundle could never be kept.
      if (UNSTORABLE_TEXT.test(value)) report('value', 'the string contains U+0000 or an unpaired surrogate');
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) report('structure', `${String(value)} is not a JSON number`);
    } else if (value === null || typeof value === 'boolean') {
      return;
    } else if (typeof value !== 'object') {
      report('structure', `${typeof value} is not a JSON value`);
    } else if (depth > MAX_NESTING_DEPTH) {
      report('structure', `nested deeper than ${MAX_NESTING_DEPTH} levels`);
    } else if (Array.isArray(value)) {
      const bound = options.maxItems?.(path) ?? Number.POSITIVE_INFINITY;
      if (value.length > bound) {
        inspection.overBound = true;
        report('too-long', `${value.length} items exceed the limit of ${bound}`);
        return;
      }
      // An index loop, not forEach: holes of sparse arrays are undefined, which JSON cannot carry.
      for (let index = 0; index < value.length; index++) visitChild(index, value[index], depth);
    } else {
      for (const key of Object.keys(value)) visitChild(key, (value as Record<string, unknown>)[key], depth);
    }
  };
  const visitChild = (key: PathSegment, child: unknown, depth: number) => {
    path.push(key);
    if (typeof key === 'string' && FORBIDDEN_KEYS.has(key)) report('invalid', `the key '${key}' is not allowed`);
    else visit(child, depth + 1);
    path.pop();
  };

  visit(input, 1);
  return inspection;
}
