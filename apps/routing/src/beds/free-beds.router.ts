import { Router } from 'express';
import type { Logger } from 'pino';
import type { FreeBedsList } from '@bedrequest/contracts';
import { HttpError, jsonErrorHandler, type DomainErrors } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { InvalidBedCountError, clinicToday } from './bed-count';
import type { BedCapacityRepository } from './bed-capacity.repository';
import { freeBedsItem, parseFreeBedsQuery } from './free-beds';

const queryErrors: DomainErrors = (error) => (error instanceof InvalidBedCountError ? new HttpError('invalid_request', error.message) : undefined);

/**
 * Routing's internal read behind the gateway's `GET /api/v1/kliniken/free-beds`, called with the
 * referrer's access token (forwarded by the gateway, verified here; any other token is 403): the
 * published bed counts of one date, of the clinics that show them to referrers, and nothing of the
 * others. Mounted at `/internal/free-beds`.
 *
 * - `GET ?date=YYYY-MM-DD[&department=2300]`: 200 `{date, items: [{ik, department, published, held,
 *   reserved, free}]}` by clinic and department; 400 `invalid_request` for a missing, malformed or
 *   past date (Europe/Berlin) or a malformed department.
 */
export function freeBedsRouter(beds: BedCapacityRepository, verifier: TokenVerifier, logger: Logger, today: () => string = () => clinicToday()): Router {
  const router = Router();
  router.use(requireToken({ verifier, roles: ['referrer'] }));
  router.get('/', async (req, res) => {
    const query = parseFreeBedsQuery({ date: req.query.date, department: req.query.department }, today());
    const counts = await beds.shownToReferrers(query.date, query.department);
    res.json({ date: query.date, items: counts.map(freeBedsItem) } satisfies FreeBedsList);
  });
  router.use(jsonErrorHandler(logger, { domainErrors: queryErrors }));
  return router;
}
