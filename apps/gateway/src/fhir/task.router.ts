import { Router } from 'express';
import { FHIR_JSON } from './fhir-response';
import { forwardedCallOf, type IntakeClient } from './intake.client';

/** What `sendFhir` sends for a string body; a Buffer body gets no charset from express. */
const FHIR_JSON_UTF8 = `${FHIR_JSON}; charset=utf-8`;

/**
 * `GET /api/v2/fhir/Task` and `GET /api/v2/fhir/Task/{id}` (docs/decisions.md, "Tasks"), answered by
 * intake, which owns the Tasks and applies the visibility rules to the party of the forwarded token.
 * Intake's FHIR JSON goes back as it wrote it; intake unavailable is 503 with Retry-After (an
 * OperationOutcome, from the gateway's error handler).
 */
export function taskRouter(intake: IntakeClient): Router {
  const router = Router();
  router.get('/Task', async (req, res) => {
    const answer = await intake.tasks('', new URL(req.originalUrl, 'http://gateway').search, forwardedCallOf(req, res));
    res.status(answer.status).set('content-type', FHIR_JSON_UTF8).send(answer.body);
  });
  router.get('/Task/:id', async (req, res) => {
    const answer = await intake.tasks(`/${encodeURIComponent(req.params.id)}`, new URL(req.originalUrl, 'http://gateway').search, forwardedCallOf(req, res), [
      'etag',
    ]);
    // The Task's tag, which a clinic's answer names in If-Match (docs/api.md, "Clinic API").
    if (answer.headers['etag']) res.setHeader('ETag', answer.headers['etag']);
    res.status(answer.status).set('content-type', FHIR_JSON_UTF8).send(answer.body);
  });
  return router;
}
