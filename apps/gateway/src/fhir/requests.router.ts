import type { RequestHandler } from 'express';
import type { RawAnswer } from '@bedrequest/http';
import { FHIR_JSON } from './fhir-response';
import { forwardedCallOf, ForwardingIntakeClient, type ForwardedCall } from './intake.client';

/** What `sendFhir` sends for a string body; a Buffer body gets no charset from express. */
const FHIR_JSON_UTF8 = `${FHIR_JSON}; charset=utf-8`;

/**
 * Intake's requests by their identifier (`/internal/requests?identifier=`), called with the
 * referrer's forwarded token: intake finds the request, checks that it is the caller's party's, and
 * reads it back (`GET`, recorded in the audit trail) or erases its patient data (`DELETE`).
 */
export class IntakeRequestsClient extends ForwardingIntakeClient {
  constructor(intakeUrl: string, timeoutMs = 10_000) {
    super(intakeUrl, '/internal/requests', 'the request store is unavailable; please retry', { timeoutMs });
  }

  forward(method: 'GET' | 'DELETE', search: string, call: ForwardedCall): Promise<RawAnswer> {
    return this.call(method, search, call);
  }
}

/**
 * `/api/v2/fhir/ServiceRequest?identifier=<uri>`, referrer tokens only, passed on to intake as the
 * caller wrote it: intake checks the query and its FHIR JSON comes back unread. Patient data: never
 * cached.
 *
 * - `GET` (docs/api.md, "Reading a request back"): the latest version of a request the referrer
 *   sent, as a searchset: the ServiceRequest (the match, with its version and the status the service
 *   holds) and the other resources of that version (includes); an empty searchset for an unknown
 *   request and for another party's; 410 once its patient data was erased; 400 for a missing or
 *   malformed identifier or any other parameter.
 * - `DELETE` (docs/api.md, "Erasure"): the erasure of the request's patient data. Intake erases its
 *   own copy in one transaction before it answers (so a 202 is never lost) and tells the notifier and
 *   routing through its outbox, which they follow asynchronously: 202 with an OperationOutcome, also
 *   for a request erased before (idempotent); 404 for an unknown request or another referrer's; 400
 *   without `identifier`. The erasure is recorded in the audit trail (a `delete` AuditEvent). A
 *   searched or polled erased request answers its tombstone: its Tasks, without notes.
 */
export function intakeRequestsRoute(intake: IntakeRequestsClient, method: 'GET' | 'DELETE'): RequestHandler {
  return async (req, res) => {
    const answer = await intake.forward(method, new URL(req.originalUrl, 'http://gateway').search, forwardedCallOf(req, res));
    res.status(answer.status).set('content-type', FHIR_JSON_UTF8).set('cache-control', 'no-store').send(answer.body);
  };
}
