import express, { Router } from 'express';
import type { Logger } from 'pino';
import { HttpError, jsonErrorHandler, type DomainErrors } from '@bedrequest/http';
import { principalOf, requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { clinicIkOf } from '../http/clinic-ik-param';
import { InvalidBedCountError } from './bed-count';
import { UnknownClinicError, type BedCountService } from './bed-count.service';

const bedCountErrors: DomainErrors = (error) => {
  if (error instanceof InvalidBedCountError) return new HttpError('invalid_request', error.message);
  if (error instanceof UnknownClinicError) return new HttpError('not_found', error.message);
  return undefined;
};

/**
 * Routing's internal bed-count API behind the gateway's `PUT`/`GET /api/v1/clinic/capacity`, called
 * with the clinic's access token (forwarded by the gateway, verified here): a clinic reads and sets
 * the counts of its own IK only (403 for another's, 401 without a valid token). Mounted at
 * `/internal/clinics/:ik/capacity`.
 *
 * - `PUT` `{department, date, freeBeds}`: 200 with the count, 400 `invalid_request`, 404 `not_found`.
 * - `GET` `?from=YYYY-MM-DD&to=YYYY-MM-DD` (both optional, inclusive): 200 `{items: [...]}` by date.
 */
export function capacityRouter(service: BedCountService, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router({ mergeParams: true });
  router.use(requireToken({ verifier, roles: ['clinic'] }), (req, res, next) => {
    if (!principalOf(res).ikNumbers.includes(clinicIkOf(req))) throw new HttpError('forbidden', 'a clinic manages the bed counts of its own IK only');
    next();
  });
  router.put('/', express.json({ limit: '16kb' }), async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    res.json(await service.publish(clinicIkOf(req), { department: body.department, date: body.date, freeBeds: body.freeBeds }));
  });
  router.get('/', async (req, res) => {
    res.json({ items: await service.list(clinicIkOf(req), { from: req.query.from, to: req.query.to }) });
  });
  router.use(jsonErrorHandler(logger, { domainErrors: bedCountErrors }));
  return router;
}
