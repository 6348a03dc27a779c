import type { z } from 'zod';
import type { Issue, IssueCode } from '../outcome';
import { quoted } from './excerpt';
import { elementName, fhirPath, type PathSegment } from './fhir-path';

/**
 * Validation issues: built by hand, or translated from zod issues. The FHIR issue type says what
 * kind of problem it is (all of them answer 400: the gateway refuses a bundle as `invalid_request`):
 *
 * | problem                                             | FHIR issue type |
 * |-----------------------------------------------------|-----------------|
 * | a required element or a minimum cardinality missing | `required`      |
 * | wrong JSON type, more items than allowed            | `structure`     |
 * | a code outside its closed list                      | `code-invalid`  |
 * | a malformed value (format, pattern, empty string)   | `value`         |
 * | a string over the length limit                      | `too-long`      |
 * | references, counts and other rules across elements  | `invalid`       |
 */

type ZodIssue = z.core.$ZodIssue;
type ZodRawIssue = z.core.$ZodRawIssue;

export function issue(code: IssueCode, diagnostics: string, segments: readonly PathSegment[] = []): Issue {
  return { severity: 'error', code, diagnostics, expression: fhirPath(segments) };
}

/** Parameters of a datatype refinement: its FHIR issue type, and a message that follows the element name. */
export const predicateParams = (code: IssueCode) => ({ fhirCode: code, predicate: true });

/** A custom zod issue that keeps its FHIR issue type (see `fromZodIssue`). */
export function customIssue(code: IssueCode, message: string, path: PathSegment[] = []) {
  return { code: 'custom' as const, message, path, params: { fhirCode: code } };
}

/** Options for every `safeParse` of the validators: readable messages and the input on each issue. */
export const parseOptions = { reportInput: true, error: describeZodIssue } as const;

export function fromZodIssues(issues: readonly ZodIssue[], prefix: readonly PathSegment[] = []): Issue[] {
  return issues.map((zodIssue) => fromZodIssue(zodIssue, prefix));
}

function fromZodIssue(zodIssue: ZodIssue, prefix: readonly PathSegment[]): Issue {
  const segments = [...prefix, ...zodIssue.path.map((segment) => (typeof segment === 'symbol' ? String(segment) : segment))];
  const code = issueCode(zodIssue);
  // Custom issues are whole sentences, except the refinements of datatypes; the others are
  // predicates about the element ("must be a UUID").
  const sentence = zodIssue.code === 'custom' && zodIssue.params?.['predicate'] !== true;
  const diagnostics = sentence ? zodIssue.message : `${elementName(segments)} ${zodIssue.message}`;
  return { severity: 'error', code, diagnostics, expression: fhirPath(segments) };
}

function issueCode(zodIssue: ZodIssue): IssueCode {
  switch (zodIssue.code) {
    case 'invalid_type':
      return zodIssue.input === undefined ? 'required' : 'structure';
    case 'invalid_value':
      return zodIssue.input === undefined ? 'required' : 'code-invalid';
    case 'invalid_format':
      return 'value';
    case 'too_small':
      return zodIssue.origin === 'array' ? 'required' : 'value';
    case 'too_big':
      return zodIssue.origin === 'array' ? 'structure' : 'too-long';
    case 'custom':
      return (zodIssue.params?.['fhirCode'] as IssueCode | undefined) ?? 'invalid';
    default:
      return 'structure';
  }
}

/** Default messages, phrased to follow the element name ("status must be one of ..."). */
function describeZodIssue(raw: ZodRawIssue): string | undefined {
  switch (raw.code) {
    case 'invalid_type':
      return raw.input === undefined ? 'is required' : `must be ${article(raw.expected)}`;
    case 'invalid_value':
      if (raw.input === undefined) return 'is required';
      return raw.values.length === 1 ? `must be ${quote(raw.values[0])}` : `must be one of ${raw.values.map(quote).join(', ')}`;
    case 'too_small':
      return raw.origin === 'array' ? `must have at least ${raw.minimum} item(s)` : 'must not be empty';
    case 'too_big':
      return raw.origin === 'array'
        ? `must have ${raw.exact ? 'exactly' : 'at most'} ${raw.maximum} item(s)`
        : `must not be longer than ${raw.maximum} characters`;
    case 'invalid_format':
      return 'has an invalid format';
    default:
      return undefined;
  }
}

function article(expected: string): string {
  return expected === 'array' || expected === 'object' ? `an ${expected}` : `a ${expected}`;
}

/** The allowed values of a literal or enum (ours, not the input's, but quoted the one way all the same). */
function quote(value: unknown): string {
  return typeof value === 'string' ? quoted(value) : String(value);
}
