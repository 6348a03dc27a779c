import { Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpError } from '@bedrequest/http';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { accessTokenOf } from '@bedrequest/tokens';
import type { ClinicCapacityClient } from '../capacity/capacity.client';
import { errorHandler } from '../http-errors';

/**
 * The query of `GET /api/v1/kliniken/free-beds`: one admission date, optionally one department, and
 * no other parameter. The shape is checked here; routing checks the rest (a calendar date, today or
 * later in Europe/Berlin).
 */
export const FreeBedsQuery = z.strictObject({
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be one admission date YYYY-MM-DD'),
  department: z
    .string()
    .regex(/^\d{4}$/, 'must be one department key of 4 digits, e.g. "2300"')
    .optional(),
});

/**
 * `GET /api/v1/kliniken/free-beds?date=YYYY-MM-DD[&department=2300]`, for referrers' tokens (mount
 * behind the referrer-role guard): the published bed counts of that date of the clinics that show
 * them to referrers (`PUT /api/v1/clinic/capacity/visibility`), read from routing with the
 * referrer's token, `{date, items: [{ik, department, published, held, reserved, free}]}`. 400
 * `invalid_request` for a missing, malformed or past date or a malformed department; 503 with
 * `Retry-After` when routing is unreachable.
 */
export function freeBedsRouter(options: { capacity: ClinicCapacityClient; logger: Logger }): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const query = HttpError.parseInput(FreeBedsQuery, req.query);
    const answer = await options.capacity.freeBeds(query, { token: accessTokenOf(res), correlationId: String(req.headers[CORRELATION_HEADER]) });
    if (answer.status === 400) throw new HttpError('invalid_request', answer.body.message);
    res.status(200).json(answer.body);
  });
  router.use(errorHandler(options.logger));
  return router;
}
