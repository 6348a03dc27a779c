import type { OperationOutcome, OperationOutcomeIssue } from '@medplum/fhirtypes';
import { excerpt } from './validation/excerpt';

/**
 * The one place that builds OperationOutcomes (docs/decisions.md, "Errors": every 4xx/5xx on a FHIR
 * endpoint is an OperationOutcome with severity, code and diagnostics; validation issues carry the
 * FHIRPath `expression`). The status an error answers and the issue type of its code are not
 * here: they are the one table of error codes, `errorCodes` in libs/http (an HTTP status is the
 * protocol's, layer:infra; this library is layer:domain, below it), and its `outcomeOf` builds
 * an error's OperationOutcome with this `outcome`.
 */

export type IssueCode = NonNullable<OperationOutcomeIssue['code']>;

export interface Issue {
  code: IssueCode;
  diagnostics: string;
  expression?: string;
  severity?: 'fatal' | 'error' | 'warning' | 'information';
}

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

/**
 * Why a clinic's read of an erased request's bundle, documents or versions is 410: said once, for
 * the FHIR answer and the `{"error", "message"}` one alike.
 */
export const erasedMessage = (erasedAt: Date) =>
  `the patient data of this request was erased on ${erasedAt.toISOString()} (data protection); its Task remains, with its states, as a tombstone`;
