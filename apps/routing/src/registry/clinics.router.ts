import { Router } from 'express';
import type { Logger } from 'pino';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { automaticAnswersRouter } from './automatic-answers.router';
import { clinicRecord, type ClinicRegistry } from './clinic-registry.service';

/**
 * Routing's internal clinic API, for the services' replicas of the registry (gateway, intake) and
 * the auth service's admin command line (is this IK a registered clinic?). Other services ask here
 * instead of reading the routing schema. Not exposed by the gateway; a call needs a service token.
 * Except `/{ik}/auto-answer`, the clinic's own switch, which the gateway forwards with the clinic's
 * token (automatic-answers.router.ts).
 */
export function clinicsRouter(registry: ClinicRegistry, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  router.use('/:ik/auto-answer', automaticAnswersRouter(registry, verifier, logger));
  router.use(requireToken({ verifier, services: true }));
  router.get('/', async (_req, res) => {
    res.json({ items: (await registry.list()).map(clinicRecord) });
  });
  router.get('/:ik', async (req, res) => {
    const clinic = await registry.find(req.params.ik);
    if (!clinic) throw new HttpError('not_found', `no participating clinic with IK ${req.params.ik}`);
    res.json(clinicRecord(clinic));
  });
  router.use(jsonErrorHandler(logger));
  return router;
}
