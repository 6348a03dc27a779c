import { Router } from 'express';
import type { Logger } from 'pino';
import { ClinicDirectoryUnavailableError, type ClinicDirectory } from '@bedrequest/clinic-directory';
import { HttpError } from '@bedrequest/http';
import { errorHandler } from '../http-errors';

/**
 * `GET /api/v1/kliniken`: the participating clinics and their departments, for any logged-in party,
 * from the registry the gateway keeps in memory (routing owns it and broadcasts its changes).
 */
export function klinikenRouter(directory: Pick<ClinicDirectory, 'list'>, logger: Logger): Router {
  const router = Router();
  router.get('/', async (_req, res) => {
    try {
      // docs/decisions.md's clinic record has these three fields: a clinic's location stays with the services.
      res.json({ items: (await directory.list()).map(({ ik, name, departments }) => ({ ik, name, departments })) });
    } catch (error) {
      if (!(error instanceof ClinicDirectoryUnavailableError)) throw error;
      throw new HttpError('unavailable', 'the clinic registry is temporarily unavailable', { retryAfterSeconds: 5, cause: error.cause, detail: error.message });
    }
  });
  router.use(errorHandler(logger));
  return router;
}
