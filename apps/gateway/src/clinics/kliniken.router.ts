import { Router } from 'express';
import type { Logger } from 'pino';
import { ClinicDirectoryUnavailableError, type ClinicDirectory } from '@bedrequest/clinic-directory';

/**
 * `GET /api/v1/kliniken`: the participating clinics and their departments, for any logged-in party,
 * from the registry the gateway keeps in memory (routing owns it and broadcasts its changes).
 */
export function klinikenRouter(directory: Pick<ClinicDirectory, 'list'>, logger: Logger): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    try {
      res.json({ items: await directory.list() });
    } catch (error) {
      if (!(error instanceof ClinicDirectoryUnavailableError)) throw error;
      logger.warn({ err: error.message, cause: (error.cause as Error | undefined)?.message }, 'clinic registry unavailable');
      res.status(503).setHeader('Retry-After', '5').json({ error: 'unavailable', message: 'the clinic registry is temporarily unavailable' });
    }
  });
  return router;
}
