import { Router, type ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
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
      res.status(400).json({ error: 'invalid_request', message: `limit must be a whole number from 1 to ${MAX_LIMIT}` });
      return;
    }
    res.json({ items: await dispatches.notificationsOf(clinicIkOf(req), limit) });
  });
  const onError: ErrorRequestHandler = (error: Error, _req, res, _next) => {
    logger.error({ err: error.message }, 'notification log request failed');
    res.status(500).json({ error: 'internal', message: 'the notification log failed to answer' });
  };
  router.use(onError);
  return router;
}
