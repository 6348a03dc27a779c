import type { IssueCode } from '@bedrequest/fhir-model';

/**
 * Every error code the services answer with, its HTTP status and, for FHIR endpoints, the
 * OperationOutcome issue type of the same condition (docs/decisions.md, "Errors": `{"error", "message"}`
 * on /api/v1 and internal endpoints, an OperationOutcome on /api/v2/fhir). docs/api.md lists this
 * table for callers; keep the two in step.
 */
export const errorCodes = {
  invalid_request: {
    status: 400,
    issue: 'invalid',
    meaning: 'the body, a parameter or a header is not what the endpoint takes (including a body that is not valid JSON)',
  },
  unauthorized: { status: 401, issue: 'login', meaning: 'missing, invalid or expired access token' },
  invalid_credentials: { status: 401, issue: 'login', meaning: 'login failed: unknown user, wrong password or disabled user' },
  invalid_refresh_token: { status: 401, issue: 'login', meaning: 'unknown, expired, already used or revoked refresh token' },
  forbidden: { status: 403, issue: 'forbidden', meaning: 'a token of the wrong role for this endpoint' },
  insufficient_scope: {
    status: 403,
    issue: 'forbidden',
    meaning: "a system client's token without the scope this endpoint needs; `WWW-Authenticate` names the scope (RFC 6750 3.1)",
  },
  not_found: { status: 404, issue: 'not-found', meaning: 'unknown endpoint or id, or one the caller may not see' },
  method_not_allowed: { status: 405, issue: 'not-supported', meaning: 'the path exists, but not with this method; `Allow` lists the methods it takes' },
  conflict: { status: 409, issue: 'conflict', meaning: 'the state does not allow it (e.g. an answer to a cancelled Task)' },
  precondition_failed: {
    status: 412,
    issue: 'conflict',
    meaning: "`If-Match` names none of the resource's current entity tags: it changed since the caller read it; `ETag` gives the current one",
  },
  gone: {
    status: 410,
    issue: 'deleted',
    meaning: 'the patient data of an erased request (bundle, documents, versions); its Task remains, searched and read as a tombstone',
  },
  payload_too_large: { status: 413, issue: 'too-costly', meaning: "the body is larger than the endpoint's limit" },
  unsupported_media_type: { status: 415, issue: 'not-supported', meaning: 'a content type, charset or content encoding the endpoint does not read' },
  too_many_requests: { status: 429, issue: 'throttled', meaning: 'rate limited or too many failed logins; `Retry-After` says when to try again' },
  internal_error: { status: 500, issue: 'exception', meaning: 'an unexpected failure; the details are logged, not returned' },
  unavailable: {
    status: 503,
    issue: 'transient',
    meaning: 'a backing service (broker, database, Redis, another service) is unreachable or answered outside its contract; `Retry-After` says when to retry',
  },
} as const satisfies Record<string, { status: number; issue: IssueCode; meaning: string }>;

export type ErrorCode = keyof typeof errorCodes;

/**
 * The generic code of an HTTP status that express or body-parser raised without saying more: the
 * first code of that 4xx status in `errorCodes` (so the generic one of a status is listed first, e.g.
 * `unauthorized` before `invalid_credentials`), `invalid_request` for any other status.
 */
export function codeOfStatus(status: number): ErrorCode {
  if (status < 400 || status >= 500) return 'invalid_request';
  return (Object.keys(errorCodes) as ErrorCode[]).find((code) => errorCodes[code].status === status) ?? 'invalid_request';
}
