import { Router } from 'express';
import type { Logger } from 'pino';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { ClinicDirectoryUnavailableError, type ClinicDirectoryClient } from './clinic-directory.client';

/** `GET /api/v1/kliniken`: the participating clinics and their departments, for any logged-in party. */
export function klinikenRouter(directory: ClinicDirectoryClient, logger: Logger): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    try {
      res.json(await directory.list(String(req.headers[CORRELATION_HEADER])));
    } catch (error) {
      if (!(error instanceof ClinicDirectoryUnavailableError)) throw error;
      logger.warn({ err: error.message, cause: (error.cause as Error | undefined)?.message }, 'clinic registry unavailable');
      res.status(503).setHeader('Retry-After', '5').json({ error: 'unavailable', message: 'the clinic registry is temporarily unavailable' });
    }
  });
  return router;
}
