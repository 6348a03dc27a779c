import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpError, jsonErrorHandler, type DomainErrors } from '@bedrequest/http';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { principalOf } from '../auth';
import { CapacityServiceUnavailableError, type ClinicCapacityClient } from './capacity.client';

/**
 * The body of `PUT /api/v1/clinic/capacity` (docs/parties.md, "Clinics and routing"): the free beds
 * of one of the clinic's departments on one admission date. The shape is checked here; routing
 * checks the rest (a department the clinic offers, a calendar date).
 */
const message = {
  body: 'the body must be a JSON object {"department", "date", "freeBeds"} and nothing else',
  department: 'department must be a department key of 4 digits, e.g. "2300"',
  date: 'date must be an admission date YYYY-MM-DD',
  freeBeds: 'freeBeds must be a whole number from 0',
};
const BedCount = z.strictObject(
  {
    department: z.string({ error: message.department }).regex(/^\d{4}$/, { error: message.department }),
    date: z.string({ error: message.date }).regex(/^\d{4}-\d{2}-\d{2}$/, { error: message.date }),
    freeBeds: z.number({ error: message.freeBeds }).int({ error: message.freeBeds }).min(0, { error: message.freeBeds }),
  },
  { error: message.body },
);

const DateQuery = z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional();

const capacityErrors: DomainErrors = (error) =>
  error instanceof CapacityServiceUnavailableError
    ? new HttpError('unavailable', 'the bed counts are temporarily unavailable; please retry', { retryAfterSeconds: 5, cause: error.cause, detail: error.message })
    : undefined;

/**
 * The clinic's bed counts, for clinic tokens only (mount behind the clinic-role guard): a clinic
 * publishes and reads the counts of its own IK, taken from its token, never another's.
 *
 * - `PUT /` `{department, date, freeBeds}`: 200 with `{department, specialty, date, freeBeds, held,
 *   reserved, available}`; 400 `invalid_request`.
 * - `GET /?from=YYYY-MM-DD&to=YYYY-MM-DD`: 200 `{items: [...]}`, by date.
 *
 * Errors are `{"error", "message"}` (decisions.md, "Errors"); 503 with `Retry-After` when routing is
 * unreachable.
 */
export function capacityRouter(options: { capacity: ClinicCapacityClient; logger: Logger }): Router {
  const router = Router();
  const clinicIkOf = (res: Response) => principalOf(res).ikNumbers[0] ?? '';
  const correlationIdOf = (req: Request) => String(req.headers[CORRELATION_HEADER]);

  router.put('/', express.json({ limit: '16kb' }), async (req, res) => {
    const body = BedCount.safeParse(req.body);
    if (!body.success) throw new HttpError('invalid_request', body.error.issues[0]?.message ?? message.body);
    return forward(res, await options.capacity.put(clinicIkOf(res), body.data, correlationIdOf(req)));
  });

  router.get('/', async (req, res) => {
    const from = DateQuery.safeParse(req.query.from);
    const to = DateQuery.safeParse(req.query.to);
    if (!from.success || !to.success) throw new HttpError('invalid_request', 'from and to are dates YYYY-MM-DD');
    return forward(res, await options.capacity.list(clinicIkOf(res), { from: from.data, to: to.data }, correlationIdOf(req)));
  });

  const forward = (res: Response, answer: { status: number; body: unknown }) => {
    if (answer.status === 200) return res.status(200).json(answer.body);
    const routingError = answer.body as { error?: unknown; message?: unknown };
    const message = typeof routingError?.message === 'string' ? routingError.message : 'refused';
    if (answer.status === 400) throw new HttpError('invalid_request', message);
    if (answer.status === 404) throw new HttpError('not_found', 'this clinic is not a participating clinic');
    throw new HttpError('upstream_error', 'the bed counts answered unexpectedly', { detail: `routing answered a bed-count request with HTTP ${answer.status}` });
  };

  router.use(jsonErrorHandler(options.logger, { domainErrors: capacityErrors }));
  return router;
}
