import { Router } from 'express';
import type { ReferrerContact } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { contactOf } from './party-members.service';
import type { PartyRepository } from './party.repository';

/**
 * `GET /internal/parties/{id}/contact` (mounted at /internal; never proxied by the gateway): a party's
 * name and contact, which the gateway shows a clinic for the requests the party sent it (docs/api.md,
 * "Clinic API"). The gateway checks with intake that the clinic may see the request before it asks;
 * only a service of the stack may read it, with a service token (docs/architecture.md, "Internal HTTP
 * APIs"): 401 without one, 403 for a party's, 404 for no such party. A disabled party's contact stays
 * readable: its requests stay with the clinics.
 */
export function partyContactRouter(options: { parties: PartyRepository; services: TokenVerifier }): Router {
  const router = Router();
  router.get('/parties/:id/contact', requireToken({ verifier: options.services, services: true }), async (req, res) => {
    const party = await options.parties.findById(String(req.params.id));
    if (!party) throw new HttpError('not_found', 'no such party');
    res.json({ name: party.name, ...contactOf(party) } satisfies ReferrerContact);
  });
  return router;
}
