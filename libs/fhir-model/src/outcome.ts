import type { OperationOutcome, OperationOutcomeIssue } from '@medplum/fhirtypes';
import { excerpt } from './validation/excerpt';

/**
 * The one place that builds OperationOutcomes and maps them to HTTP statuses (decisions.md,
 * "Errors": every 4xx/5xx on a FHIR endpoint is an OperationOutcome with severity, code and
 * diagnostics; validation issues carry the FHIRPath `expression`).
 */

export type IssueCode = NonNullable<OperationOutcomeIssue['code']>;

export interface Issue {
  code: IssueCode;
  diagnostics: string;
  expression?: string;
  severity?: 'fatal' | 'error' | 'warning' | 'information';
}

const statusByIssueCode: Partial<Record<IssueCode, number>> = {
  invalid: 400,
  structure: 400,
  required: 400,
  value: 400,
  'code-invalid': 400,
  'too-long': 400,
  login: 401,
  security: 401,
  forbidden: 403,
  'not-found': 404,
  deleted: 410,
  conflict: 409,
  'business-rule': 409,
  'too-costly': 413,
  throttled: 429,
  exception: 500,
  transient: 503,
};

/**
 * Diagnostics quote input only as excerpts (`quoted`); this bound is the net under every message,
 * ours or passed on (intake's verdicts, parser errors): the longest we write, a list of the 24
 * specialty codes, is about 400 characters.
 */
export const MAX_DIAGNOSTICS_LENGTH = 1000;

export function outcome(issues: readonly Issue[]): OperationOutcome {
  return {
    resourceType: 'OperationOutcome',
    issue: issues.map(({ severity = 'error', code, diagnostics, expression }) => ({
      severity,
      code,
      diagnostics: excerpt(diagnostics, MAX_DIAGNOSTICS_LENGTH),
      ...(expression ? { expression: [expression] } : {}),
    })),
  };
}

/** The HTTP status of an error outcome: that of its first issue. */
export function getStatus(result: OperationOutcome): number {
  const code = result.issue?.[0]?.code;
  return (code && statusByIssueCode[code]) ?? 500;
}

export const badRequest = (diagnostics: string, expression?: string) => outcome([{ code: 'invalid', diagnostics, expression }]);
export const unauthorized = (diagnostics = 'a valid bearer access token is required') => outcome([{ code: 'login', diagnostics }]);
export const forbidden = (diagnostics: string) => outcome([{ code: 'forbidden', diagnostics }]);
export const notFound = (diagnostics = 'not found') => outcome([{ code: 'not-found', diagnostics }]);
/** A read of what was deleted (FHIR http.html#read: 410 Gone). */
export const gone = (diagnostics: string) => outcome([{ code: 'deleted', diagnostics }]);
/**
 * Why a clinic's read of an erased request's bundle, documents or versions is 410: said once, for
 * the FHIR answer and the `{"error", "message"}` one alike.
 */
export const erasedMessage = (erasedAt: Date) =>
  `the patient data of this request was erased on ${erasedAt.toISOString()} (data protection); its Task remains, with its states, as a tombstone`;
export const conflict = (diagnostics: string) => outcome([{ code: 'conflict', diagnostics }]);
export const tooLarge = (diagnostics: string) => outcome([{ code: 'too-costly', diagnostics }]);
export const throttled = (diagnostics = 'too many requests') => outcome([{ code: 'throttled', diagnostics }]);
export const unavailable = (diagnostics: string) => outcome([{ code: 'transient', diagnostics }]);
export const serverError = (diagnostics = 'internal error') => outcome([{ code: 'exception', diagnostics }]);
