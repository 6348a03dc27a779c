import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { unavailable } from '@bedrequest/fhir-model';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { principalOf } from '../auth';
import { FHIR_JSON, sendOutcome } from './fhir-response';
import type { IntakeClient } from './intake.client';

/** What `sendFhir` sends for a string body; a Buffer body gets no charset from express. */
const FHIR_JSON_UTF8 = `${FHIR_JSON}; charset=utf-8`;

/**
 * `GET /api/v2/fhir/Task` and `GET /api/v2/fhir/Task/{id}` (decisions.md, "Tasks"), answered by
 * intake, which owns the Tasks and applies the visibility rules.
 */
export function taskRouter(intake: IntakeClient, logger: Logger): Router {
  const router = Router();
  const forward = async (req: Request, res: Response, path: string) => {
    try {
      const answer = await intake.getRaw(path, principalOf(res), {
        search: new URL(req.originalUrl, 'http://gateway').search,
        correlationId: String(req.headers[CORRELATION_HEADER]),
        publicBase: publicBaseOf(req),
      });
      // Intake's FHIR JSON as it wrote it: parsing and serialising it again would change nothing.
      res.status(answer.status).set('content-type', FHIR_JSON_UTF8).send(answer.body);
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'intake unavailable for a Task read');
      res.setHeader('Retry-After', '5');
      sendOutcome(res, unavailable('the Task store is unavailable; please retry'), 503);
    }
  };
  router.get('/Task', (req, res) => forward(req, res, '/internal/tasks'));
  router.get('/Task/:id', (req, res) => forward(req, res, `/internal/tasks/${encodeURIComponent(req.params.id)}`));
  return router;
}

export function publicBaseOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`;
}
