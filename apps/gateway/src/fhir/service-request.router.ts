import type { RequestHandler } from 'express';
import type { InternalClient, RawAnswer } from '@bedrequest/http';
import { FHIR_JSON } from './fhir-response';
import { forwardedCallOf, forwardedHeaders, intakeConnection, type ForwardedCall } from './intake.client';

/** What `sendFhir` sends for a string body; a Buffer body gets no charset from express. */
const FHIR_JSON_UTF8 = `${FHIR_JSON}; charset=utf-8`;

/**
 * Intake's read of a request by its identifier (`GET /internal/requests?identifier=`), called with
 * the referrer's forwarded token: intake finds the request, checks that it is the caller's party's
 * and records the read in the audit trail.
 */
export class IntakeRequestReadClient {
  private readonly client: InternalClient;

  constructor(intakeUrl: string, timeoutMs = 10_000) {
    this.client = intakeConnection(intakeUrl, 'the request store is unavailable; please retry', { timeoutMs });
  }

  search(search: string, call: ForwardedCall): Promise<RawAnswer> {
    return this.client.raw({
      method: 'GET',
      path: `/internal/requests${search}`,
      credential: call.token,
      correlationId: call.correlationId,
      headers: forwardedHeaders(call),
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * `GET /api/v2/fhir/ServiceRequest?identifier=<uri>` (docs/api.md, "Reading a request back"): the
 * referrer reads back the latest version of a request it sent, as a searchset: the ServiceRequest
 * (the match, with its version and the status the service holds) and the other resources of that
 * version (includes); an empty searchset for an unknown request and for another party's; 410 once
 * its patient data was erased; 400 for a missing or malformed identifier or any other parameter.
 * The search goes on as the caller wrote it: intake reads and checks it, and its FHIR JSON comes
 * back unread. Patient data: never cached.
 */
export function serviceRequestSearchRoute(intake: IntakeRequestReadClient): RequestHandler {
  return async (req, res) => {
    const answer = await intake.search(new URL(req.originalUrl, 'http://gateway').search, forwardedCallOf(req, res));
    res.status(answer.status).set('content-type', FHIR_JSON_UTF8).set('cache-control', 'no-store').send(answer.body);
  };
}
