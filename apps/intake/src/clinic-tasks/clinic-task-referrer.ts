import { Router } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf, requestGrantOf, type Caller } from '../access';
import { type PrismaClient } from '../generated/prisma/client';

/**
 * Which party sent the request of a clinic's Task, for the gateway to show the clinic that party's
 * contact (docs/api.md, "Clinic API": `GET /api/v1/clinic/tasks/{taskId}/referrer`): auth owns the
 * contact, intake who owns the request. Whoever may read the Task may ask, erased or not: the answer
 * is a party id, no patient data, and not recorded in the audit trail.
 */
export class ClinicTaskReferrers {
  constructor(private readonly prisma: PrismaClient) {}

  async referrerOf(taskId: string, caller: Caller): Promise<string | undefined> {
    if (!z.guid().safeParse(taskId).success) return undefined;
    const task = await this.prisma.clinicTask.findUnique({
      where: { id: taskId },
      select: { clinicIk: true, sentVersion: true, cancelledAt: true, request: { select: { referrerPartyId: true } } },
    });
    if (!task || !requestGrantOf(caller.viewer, { ...task, referrerPartyId: task.request.referrerPartyId })) return undefined;
    return task.request.referrerPartyId;
  }
}

/**
 * `GET /internal/clinic-tasks/{id}/referrer`, called with the clinic's forwarded access token: 200
 * `{"partyId"}`; 404 for a Task the clinic may not see.
 */
export function clinicTaskReferrerRouter(referrers: ClinicTaskReferrers, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  router.use('/internal/clinic-tasks/:id/referrer', requireToken({ verifier, roles: ['clinic'] }));
  router.get('/internal/clinic-tasks/:id/referrer', async (req, res) => {
    const partyId = await referrers.referrerOf(req.params.id, callerOf(req, res));
    if (!partyId) throw new HttpError('not_found', 'no such Task');
    res.json({ partyId });
  });
  router.use('/internal/clinic-tasks/:id/referrer', jsonErrorHandler(logger));
  return router;
}
