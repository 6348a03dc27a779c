import type { OperationOutcome } from '@medplum/fhirtypes';
import { outcome } from '@bedrequest/fhir-model';
import { errorCodes } from './error-codes';
import type { HttpError } from './http-error';

/**
 * The OperationOutcome of a classified error for FHIR endpoints (docs/decisions.md, "Errors"): the same
 * condition as on /api/v1. An error that names what it refused answers one issue per element or
 * field; any other one issue, of the type its code has in `errorCodes`. Send it with
 * `error.status`. A message may quote the request (an unsupported charset is a header value of up
 * to 16 kB); `outcome` bounds its diagnostics, so the answer stays small.
 */
export function outcomeOf(error: HttpError): OperationOutcome {
  if (error.issues?.length) return outcome(error.issues);
  return outcome([{ code: errorCodes[error.code].issue, diagnostics: error.message }]);
}
