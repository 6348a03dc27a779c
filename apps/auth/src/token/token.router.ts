import express, { Router } from 'express';
import { LoginRequest, RefreshRequest, RevokeRequest, type TokenServiceStatus } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { clientAddressOf } from '@bedrequest/observability';
import type { TokenService } from './token.service';

/**
 * The token endpoints (spec, "Endpoints"): `POST /login`, `POST /refresh`, `GET /status`, mounted at
 * /api/v1/token, and `POST /revoke` (RFC 7009: 200 with no body whether or not the token was live;
 * 400 only for a body without a `refreshToken` string). Errors are thrown as typed errors
 * (../errors.ts) and answered by the app's jsonErrorHandler.
 */
export function tokenRouter(tokens: TokenService): Router {
  const router = Router();
  router.get('/status', (_req, res) => {
    res.json({ status: 'ok', time: new Date().toISOString() } satisfies TokenServiceStatus);
  });
  // 16 KiB bounds what a refresh or revocation hashes.
  router.use(express.json({ limit: '16kb' }));
  router.post('/login', async (req, res) => {
    const body = HttpError.parseInput(LoginRequest, req.body);
    // The address login throttling counts (per address): the gateway's X-Forwarded-For, believed
    // only from a trusted proxy (TRUSTED_PROXIES), else the connection's peer.
    const answer = await tokens.login({ ...body, clientAddress: clientAddressOf(req) || 'unknown' });
    noStore(res).json(answer);
  });
  router.post('/refresh', async (req, res) => {
    const body = HttpError.parseInput(RefreshRequest, req.body);
    noStore(res).json(await tokens.refresh(body.refreshToken));
  });
  router.post('/revoke', async (req, res) => {
    const body = HttpError.parseInput(RevokeRequest, req.body);
    await tokens.revoke(body.refreshToken);
    noStore(res).status(200).end();
  });
  return router;
}

/** RFC 6749 5.1: token responses must not be cached (nor, RFC 7009 2.2, a revocation's answer). */
export function noStore(res: express.Response): express.Response {
  return res.setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache');
}
