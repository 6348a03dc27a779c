import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf } from '../access';
import type { AnswerStatisticsService } from './answer-statistics.service';

const ReferrerQuery = z.strictObject({
  department: z
    .string()
    .regex(/^\d{4}$/, 'department: a four-digit Fachabteilungsschlüssel')
    .optional(),
});

/**
 * Intake's internal API behind the gateway's answer statistics (docs/api.md, "Answer statistics"),
 * called with the caller's forwarded access token (verified here). The access rule is the route's:
 * every clinic's figures to a referrer alone, and to a clinic its own beside its peers' median.
 *
 * - `GET /internal/answer-statistics/referrer?department=2300`: referrer tokens only (a clinic's: 403).
 * - `GET /internal/answer-statistics/clinic`: clinic tokens only.
 */
export function answerStatisticsRouter(statistics: AnswerStatisticsService, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  const base = '/internal/answer-statistics';
  router.use(base, requireToken({ verifier, roles: ['referrer', 'clinic'] }));
  const viewerOf = (req: Request, res: Response) => callerOf(req, res).viewer;

  router.get(`${base}/referrer`, async (req, res) => {
    if (viewerOf(req, res).role !== 'referrer') {
      throw new HttpError('forbidden', "a clinic sees its own figures only (GET /api/v1/clinic/answer-statistics), never another clinic's");
    }
    const query = ReferrerQuery.safeParse(req.query);
    if (!query.success) throw new HttpError('invalid_request', query.error.issues[0]?.message ?? 'invalid query');
    res.json(await statistics.forReferrer(query.data.department));
  });
  router.get(`${base}/clinic`, async (req, res) => {
    const viewer = viewerOf(req, res);
    if (viewer.role !== 'clinic') throw new HttpError('forbidden', 'a referrer token may not use this endpoint');
    res.json(await statistics.forClinic(viewer.ikNumbers));
  });

  router.use(base, jsonErrorHandler(logger));
  return router;
}
