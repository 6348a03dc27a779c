import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AutoAnswerRequest, FreeBedsVisibilityRequest } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { accessTokenOf, principalOf } from '@bedrequest/tokens';
import { errorHandler } from '../http-errors';
import { jsonBody } from '../json-body';
import type { CapacityCall, ClinicCapacityClient } from './capacity.client';

/**
 * The body of `PUT /api/v1/clinic/capacity` (docs/parties.md, "Clinics and routing"): the free beds
 * of one of the clinic's departments on one admission date, and no other field. The shape is
 * checked here; routing checks the rest (a department the clinic offers, a calendar date, today or
 * later in Europe/Berlin).
 */
const WHOLE_NUMBER = 'must be a whole number from 0';
export const BedCount = z.strictObject({
  department: z.string().regex(/^\d{4}$/, 'must be a department key of 4 digits, e.g. "2300"'),
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be an admission date YYYY-MM-DD'),
  freeBeds: z.number().int(WHOLE_NUMBER).min(0, WHOLE_NUMBER),
});

export const DateQuery = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/)
  .optional();

/**
 * The clinic's bed counts, for clinic tokens only (mount behind the clinic-role guard): a clinic
 * publishes and reads the counts of its own IK, taken from its token, never another's.
 *
 * - `PUT /` `{department, date, freeBeds}`: 200 with `{department, specialty, date, freeBeds, held,
 *   reserved, available}`; 400 `invalid_request`.
 * - `GET /?from=YYYY-MM-DD&to=YYYY-MM-DD`: 200 `{items: [...]}`, by date.
 * - `GET /auto-answer`: 200 `{enabled}`, whether routing answers for the clinic from these counts.
 * - `PUT /auto-answer` `{enabled: true|false}`: 200 `{enabled}` (the new setting); 400 `invalid_request`.
 * - `GET /visibility`: 200 `{shownToReferrers}`, whether referrers read these counts (GET /api/v1/kliniken/free-beds).
 * - `PUT /visibility` `{shownToReferrers: true|false}`: 200 `{shownToReferrers}` (the new setting); 400 `invalid_request`.
 * - 404 `not_found` from each when the clinic is not a participating clinic.
 *
 * Errors are `{"error", "message"}` (docs/decisions.md, "Errors"); 503 with `Retry-After` when routing is
 * unreachable or answers outside its contract (UpstreamUnavailableError of the client).
 */
export function capacityRouter(options: { capacity: ClinicCapacityClient; logger: Logger }): Router {
  const router = Router();
  const clinicIkOf = (res: Response) => principalOf(res).ikNumbers[0] ?? '';
  const callOf = (req: Request, res: Response): CapacityCall => ({ token: accessTokenOf(res), correlationId: String(req.headers[CORRELATION_HEADER]) });

  router.put('/', ...jsonBody({ limit: 16 * 1024 }), async (req, res) => {
    const bedCount = HttpError.parseInput(BedCount, req.body);
    return forward(res, await options.capacity.put(clinicIkOf(res), bedCount, callOf(req, res)));
  });

  router.get('/', async (req, res) => {
    const from = DateQuery.safeParse(req.query.from);
    const to = DateQuery.safeParse(req.query.to);
    if (!from.success || !to.success) throw new HttpError('invalid_request', 'from and to are dates YYYY-MM-DD');
    return forward(res, await options.capacity.list(clinicIkOf(res), { from: from.data, to: to.data }, callOf(req, res)));
  });

  router.get('/auto-answer', async (req, res) => forward(res, await options.capacity.automaticAnswers(clinicIkOf(res), callOf(req, res))));

  router.put('/auto-answer', ...jsonBody({ limit: 1024 }), async (req, res) => {
    const setting = HttpError.parseInput(AutoAnswerRequest, req.body);
    return forward(res, await options.capacity.switchAutomaticAnswers(clinicIkOf(res), setting, callOf(req, res)));
  });

  router.get('/visibility', async (req, res) => forward(res, await options.capacity.freeBedsVisibility(clinicIkOf(res), callOf(req, res))));

  router.put('/visibility', ...jsonBody({ limit: 1024 }), async (req, res) => {
    const setting = HttpError.parseInput(FreeBedsVisibilityRequest, req.body);
    return forward(res, await options.capacity.showFreeBeds(clinicIkOf(res), setting, callOf(req, res)));
  });

  const forward = (res: Response, answer: { status: 200; body: unknown } | { status: 400 | 404; body: { message: string } }) => {
    if (answer.status === 200) return res.status(200).json(answer.body);
    if (answer.status === 400) throw new HttpError('invalid_request', answer.body.message);
    throw new HttpError('not_found', 'this clinic is not a participating clinic');
  };

  router.use(errorHandler(options.logger));
  return router;
}
