import express, { Router } from 'express';
import type { Logger } from 'pino';
import { HttpError, jsonErrorHandler, type DomainErrors } from '@bedrequest/http';
import { clinicIkOf } from '../http/clinic-ik-param';
import { InvalidBedCountError } from './bed-count';
import { UnknownClinicError, type BedCountService } from './bed-count.service';

const bedCountErrors: DomainErrors = (error) => {
  if (error instanceof InvalidBedCountError) return new HttpError('invalid_request', error.message);
  if (error instanceof UnknownClinicError) return new HttpError('not_found', error.message);
  return undefined;
};

/**
 * Routing's internal bed-count API behind the gateway's `PUT`/`GET /api/v1/clinic/capacity` (the
 * gateway takes the IK from the clinic's token). Mounted at `/internal/clinics/:ik/capacity`.
 *
 * - `PUT` `{department, date, freeBeds}`: 200 with the count, 400 `invalid_request`, 404 `not_found`.
 * - `GET` `?from=YYYY-MM-DD&to=YYYY-MM-DD` (both optional, inclusive): 200 `{items: [...]}` by date.
 */
export function capacityRouter(service: BedCountService, logger: Logger): Router {
  const router = Router({ mergeParams: true });
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
