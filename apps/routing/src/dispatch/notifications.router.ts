import { Router } from 'express';
import type { Logger } from 'pino';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { clinicIkOf } from '../http/clinic-ik-param';
import type { DispatchRepository } from './dispatch.repository';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/**
 * `GET /internal/clinics/:ik/notifications?limit=n`: what the clinic was sent and what routing did
 * on its behalf, newest first (the audit trail of the spec's "clinics are notified" step). Internal
 * only; the admin command line shows the same (`clinic notifications`).
 */
export function notificationsRouter(dispatches: DispatchRepository, logger: Logger): Router {
  const router = Router({ mergeParams: true });
  router.get('/', async (req, res) => {
    const limit = Number(req.query.limit ?? DEFAULT_LIMIT);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      throw new HttpError('invalid_request', `limit must be a whole number from 1 to ${MAX_LIMIT}`);
    }
    res.json({ items: await dispatches.notificationsOf(clinicIkOf(req), limit) });
  });
  router.use(jsonErrorHandler(logger));
  return router;
}
