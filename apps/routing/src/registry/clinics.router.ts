import { Router } from 'express';
import type { Logger } from 'pino';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { clinicRecord, type ClinicRegistry } from './clinic-registry.service';

/**
 * Routing's internal clinic API, for the gateway (`GET /api/v1/kliniken`) and the auth service's
 * admin command line (is this IK a registered clinic?). Other services ask here instead of reading
 * the routing schema. Not exposed by the gateway; reachable on the internal network only.
 */
export function clinicsRouter(registry: ClinicRegistry, logger: Logger): Router {
  const router = Router();
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
