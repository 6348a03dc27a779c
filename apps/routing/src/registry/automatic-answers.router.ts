import express, { Router } from 'express';
import type { Logger } from 'pino';
import { AutoAnswerRequest, type AutoAnswerSetting } from '@bedrequest/contracts';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { principalOf, requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { clinicIkOf } from '../http/clinic-ik-param';
import type { ClinicRegistry } from './clinic-registry.service';

/**
 * Routing's internal API behind the gateway's `GET`/`PUT /api/v1/clinic/capacity/auto-answer`, called
 * with the clinic's access token (forwarded by the gateway, verified here): a clinic reads and
 * switches the automatic answers of its own IK only (403 for another's, 401 without a valid token),
 * as the operator does with `clinic auto-answer`. Mounted at `/internal/clinics/:ik/auto-answer`.
 *
 * - `GET`: 200 `{enabled}`; 404 `not_found` for an IK that is not a participating clinic.
 * - `PUT` `{enabled: boolean}` and no other field: 200 `{enabled}`, 400 `invalid_request`, 404.
 *
 * Nothing is broadcast: the switch is read by routing's dispatch alone (from the registry table, in
 * the transaction of each dispatch batch); the gateway's and intake's replicas of the registry do
 * not carry it (clinic.registry.changed.v1), so the next request after the switch is answered by it.
 */
export function automaticAnswersRouter(registry: ClinicRegistry, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router({ mergeParams: true });
  router.use(requireToken({ verifier, roles: ['clinic'] }), (req, res, next) => {
    if (!principalOf(res).ikNumbers.includes(clinicIkOf(req))) throw new HttpError('forbidden', 'a clinic manages the automatic answers of its own IK only');
    next();
  });

  const participating = async (ik: string) => {
    const clinic = await registry.find(ik);
    if (!clinic) throw new HttpError('not_found', `no participating clinic with IK ${ik}`);
    return clinic;
  };

  router.get('/', async (req, res) => {
    const clinic = await participating(clinicIkOf(req));
    res.json({ enabled: clinic.automaticAnswers } satisfies AutoAnswerSetting);
  });

  router.put('/', express.json({ limit: '1kb' }), async (req, res) => {
    const { enabled } = HttpError.parseInput(AutoAnswerRequest, req.body);
    const ik = clinicIkOf(req);
    await participating(ik);
    const clinic = await registry.setAutomaticAnswers(ik, enabled);
    // The party and which of its people switched; never the display name (docs/data-protection.md, "Staff").
    const { partyId, userId } = principalOf(res);
    logger.info({ clinicIk: ik, enabled: clinic.automaticAnswers, partyId, userId }, 'automatic answers switched by the clinic');
    res.json({ enabled: clinic.automaticAnswers } satisfies AutoAnswerSetting);
  });

  router.use(jsonErrorHandler(logger));
  return router;
}
