import { Router } from 'express';
import type { JSONWebKeySet } from 'jose';

/**
 * `GET /internal/jwks`: the public keys access tokens are verified with. The gateway fetches and
 * caches them (jose createRemoteJWKSet) and verifies every token locally, without calling auth.
 */
export function jwksRouter(jwks: JSONWebKeySet): Router {
  const router = Router();
  router.get('/jwks', (_req, res) => {
    // Short enough that a rotation is picked up soon; the gateway refetches on an unknown kid anyway.
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.json(jwks);
  });
  return router;
}
