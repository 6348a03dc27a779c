import { Router, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpError, type RawAnswer } from '@bedrequest/http';
import { forwardedCallOf, ForwardingIntakeClient } from '../fhir/intake.client';
import { errorHandler } from '../http-errors';

/** The query of `GET /api/v1/kliniken/answer-statistics`: optionally one department, nothing else. */
export const AnswerStatisticsQuery = z.strictObject({
  department: z
    .string()
    .regex(/^\d{4}$/, 'must be one department key of 4 digits, e.g. "2300"')
    .optional(),
});

/** Intake's answer statistics (`/internal/answer-statistics…`), with the caller's forwarded token. */
export class AnswerStatisticsClient extends ForwardingIntakeClient {
  constructor(intakeUrl: string, timeoutMs = 10_000) {
    super(intakeUrl, '/internal/answer-statistics', 'the answer statistics are unavailable; please retry', { timeoutMs, connections: 2 });
  }
}

/** Intake's answer as it wrote it; figures change with every answer, so `no-store`. */
function pass(res: Response, answer: RawAnswer): void {
  res.status(answer.status).set('cache-control', 'no-store').type('application/json').send(answer.body);
}

/**
 * `GET /api/v1/kliniken/answer-statistics[?department=2300]`, for referrers' tokens (mount behind the
 * referrer-role guard, before the clinics' list, whose guard lets every role in): every clinic's
 * first-answer figures of the last 90 days per department (docs/api.md, "Answer statistics"). A
 * clinic's token gets 403: a clinic sees its own figures only.
 */
export function referrerAnswerStatisticsRouter(options: { statistics: AnswerStatisticsClient; logger: Logger }): Router {
  const router = Router();
  router.get('/', async (req, res) => {
    const query = HttpError.parseInput(AnswerStatisticsQuery, req.query);
    const params = new URLSearchParams(query.department ? { department: query.department } : {});
    pass(res, await options.statistics.call('GET', '/referrer', forwardedCallOf(req, res), { query: params }));
  });
  router.use(errorHandler(options.logger));
  return router;
}

/**
 * `GET /api/v1/clinic/answer-statistics`, for clinics' tokens (mounted behind the clinic-role guard at
 * `/api/v1/clinic`): the clinic's own figures per department beside the median of its peers'.
 */
export function clinicAnswerStatisticsRouter(options: { statistics: AnswerStatisticsClient }): Router {
  const router = Router();
  router.get('/answer-statistics', async (req, res) => {
    HttpError.parseInput(z.strictObject({}), req.query);
    pass(res, await options.statistics.call('GET', '/clinic', forwardedCallOf(req, res)));
  });
  return router;
}
