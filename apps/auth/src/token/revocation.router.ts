import { Router } from 'express';
import type { DisabledPartiesAnswer, RevocationListAnswer } from '@bedrequest/contracts';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import type { RevocationRepository } from './revocation.repository';

/**
 * `GET /internal/revocations` (mounted at /internal; never proxied by the gateway): the people and
 * parties whose access tokens were revoked within a token's lifetime (docs/parties.md, "Disabling"),
 * read anew on every call, since the admin command line disables in the database, not through this
 * process. The gateway polls it every second. Only a service of the stack may read it, with a
 * service token (docs/architecture.md, "Internal HTTP APIs"): 401 without one, 403 for a party's.
 */
export function revocationRouter(revocations: RevocationRepository, services: TokenVerifier): Router {
  const router = Router();
  router.get('/revocations', requireToken({ verifier: services, services: true }), async (_req, res) => {
    res.json((await revocations.recent()) satisfies RevocationListAnswer);
  });
  // `GET /internal/disabled-parties`: the parties disabled now, for the notifier, which withholds their
  // webhooks (docs/webhooks.md, "Authorization at delivery time"); the same service tokens only.
  router.get('/disabled-parties', requireToken({ verifier: services, services: true }), async (_req, res) => {
    res.json((await revocations.disabledParties()) satisfies DisabledPartiesAnswer);
  });
  return router;
}
