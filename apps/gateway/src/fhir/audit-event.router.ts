import { Router } from 'express';
import { FHIR_JSON } from './fhir-response';
import { forwardedCallOf, type IntakeClient } from './intake.client';

/** What `sendFhir` sends for a string body; a Buffer body gets no charset from express. */
const FHIR_JSON_UTF8 = `${FHIR_JSON}; charset=utf-8`;

/**
 * `GET /api/v2/fhir/AuditEvent` (the audit trail: docs/api.md, "Audit trail"), answered by intake,
 * which keeps the trail and applies its visibility rules to the party of the forwarded token: a
 * referrer sees the entries about its own requests, a clinic those of its own access. Parameters
 * `entity`, `date`, `agent`, `_count` (and `_offset` of the `next` links); any other is 400.
 * Intake's FHIR JSON goes back as it wrote it; intake unavailable is 503 with Retry-After.
 */
export function auditEventRouter(intake: IntakeClient): Router {
  const router = Router();
  router.get('/AuditEvent', async (req, res) => {
    const answer = await intake.auditEvents(new URL(req.originalUrl, 'http://gateway').search, forwardedCallOf(req, res));
    res.status(answer.status).set('content-type', FHIR_JSON_UTF8).set('cache-control', 'no-store').send(answer.body);
  });
  return router;
}
