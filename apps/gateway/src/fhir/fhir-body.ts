import type { RequestHandler } from 'express';
import { jsonBody } from '../json-body';

/** docs/decisions.md, "Requests" (limits): a bundle over 10 MiB is refused with 413. */
export const MAX_BUNDLE_BYTES = 10 * 1024 * 1024;

/** The content types a FHIR JSON body may come as. */
export const FHIR_CONTENT_TYPES = ['application/fhir+json', 'application/json'] as const;

/**
 * A FHIR JSON body of at most 10 MiB: an empty body is 400, another content type 415, malformed
 * JSON 400, a larger one 413; the gateway's error handler answers each as an OperationOutcome.
 * Never a 5xx for what the caller sent.
 */
export function fhirJsonBody(): RequestHandler[] {
  return jsonBody({ limit: MAX_BUNDLE_BYTES, contentTypes: FHIR_CONTENT_TYPES });
}
