import express, { Router } from 'express';
import type { Logger } from 'pino';
import { FreeBedsVisibilityRequest, type FreeBedsVisibility } from '@bedrequest/contracts';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { principalOf, requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { clinicIkOf } from '../http/clinic-ik-param';
import type { ClinicRepository } from './clinic.repository';

/**
 * Routing's internal API behind the gateway's `GET`/`PUT /api/v1/clinic/capacity/visibility`, called
 * with the clinic's access token (forwarded by the gateway, verified here): a clinic reads and
 * switches whether referrers see its published free beds (`GET /api/v1/kliniken/free-beds`), for its
 * own IK only (403 for another's, 401 without a valid token). Mounted at
 * `/internal/clinics/:ik/free-beds-visibility`.
 *
 * - `GET`: 200 `{shownToReferrers}`; 404 `not_found` for an IK that is not a participating clinic.
 * - `PUT` `{shownToReferrers: boolean}` and no other field: 200 `{shownToReferrers}`, 400 `invalid_request`, 404.
 */
export function freeBedsVisibilityRouter(clinics: ClinicRepository, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router({ mergeParams: true });
  router.use(requireToken({ verifier, roles: ['clinic'] }), (req, res, next) => {
    if (!principalOf(res).ikNumbers.includes(clinicIkOf(req))) throw new HttpError('forbidden', 'a clinic decides who sees the free beds of its own IK only');
    next();
  });
  const notParticipating = (ik: string) => new HttpError('not_found', `no participating clinic with IK ${ik}`);

  router.get('/', async (req, res) => {
    const ik = clinicIkOf(req);
    const shownToReferrers = await clinics.freeBedsShown(ik);
    if (shownToReferrers === undefined) throw notParticipating(ik);
    res.json({ shownToReferrers } satisfies FreeBedsVisibility);
  });

  router.put('/', express.json({ limit: '1kb' }), async (req, res) => {
    const { shownToReferrers } = HttpError.parseInput(FreeBedsVisibilityRequest, req.body);
    const ik = clinicIkOf(req);
    const shown = await clinics.showFreeBeds(ik, shownToReferrers);
    if (shown === undefined) throw notParticipating(ik);
    // The party and which of its people switched; never the display name (docs/data-protection.md, "Staff").
    const { partyId, userId } = principalOf(res);
    logger.info({ clinicIk: ik, shownToReferrers: shown, partyId, userId }, 'free beds visibility switched by the clinic');
    res.json({ shownToReferrers: shown } satisfies FreeBedsVisibility);
  });

  router.use(jsonErrorHandler(logger));
  return router;
}
