import { Router } from 'express';

/** `GET /api/v1/token/status`: open, for reachability checks (spec, Authentication 8). */
export function tokenStatusRouter(): Router {
  const router = Router();
  router.get('/status', (_req, res) => {
    res.json({ status: 'ok', time: new Date().toISOString() });
  });
  return router;
}
