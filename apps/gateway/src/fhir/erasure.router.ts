import type { RequestHandler } from 'express';
import type { InternalClient, RawAnswer } from '@bedrequest/http';
import { FHIR_JSON } from './fhir-response';
import { forwardedCallOf, forwardedHeaders, intakeConnection, type ForwardedCall } from './intake.client';

/** What `sendFhir` sends for a string body; a Buffer body gets no charset from express. */
const FHIR_JSON_UTF8 = `${FHIR_JSON}; charset=utf-8`;

/**
 * Intake's erasure endpoint (`DELETE /internal/requests?identifier=`), called with the referrer's
 * forwarded token: intake checks that the request is the caller's and erases it.
 */
export class IntakeErasureClient {
  private readonly client: InternalClient;

  constructor(intakeUrl: string, timeoutMs = 10_000) {
    this.client = intakeConnection(intakeUrl, 'the request store is unavailable; please retry', { timeoutMs });
  }

  erase(search: string, call: ForwardedCall): Promise<RawAnswer> {
    return this.client.raw({
      method: 'DELETE',
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
 * `DELETE /api/v2/fhir/ServiceRequest?identifier=<uri>` (docs/api.md, "Erasure"): the referrer asks
 * for the erasure of one of its requests' patient data. Intake erases its own copy in one
 * transaction before it answers (so a 202 is never lost) and tells the notifier and routing through
 * its outbox, which they follow asynchronously: 202 with an OperationOutcome, also for a request
 * erased before (idempotent); 404 for an unknown request or another referrer's; 400 without
 * `identifier`. The erasure is recorded in the audit trail (a `delete` AuditEvent). A searched or
 * polled erased request answers its tombstone: its Tasks, without notes.
 */
export function erasureRoute(intake: IntakeErasureClient): RequestHandler {
  return async (req, res) => {
    const answer = await intake.erase(new URL(req.originalUrl, 'http://gateway').search, forwardedCallOf(req, res));
    res.status(answer.status).set('content-type', FHIR_JSON_UTF8).set('cache-control', 'no-store').send(answer.body);
  };
}
