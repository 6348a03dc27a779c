import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { RevokeRequest } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import type { TokenService } from './token.service';

/** Unknown fields are refused (400), as on every /api/v1 endpoint. */
const LoginBody = z.strictObject({ username: z.string().min(1).max(256), password: z.string().min(1).max(1024) });
/**
 * Any string is a refresh token to look up: one that is not live, however it looks (an access
 * token, 3,000 characters, a rotated-away one), is 401 like an expired one (spec, "POST
 * /api/v1/token/refresh": 401 if the refresh token is expired or invalid). Only a body without a
 * `refreshToken` string is 400. The body limit (16 KiB) bounds what is hashed.
 */
const RefreshBody = z.strictObject({ refreshToken: z.string() });

/**
 * The token endpoints (spec, "Endpoints"): `POST /login`, `POST /refresh`, `GET /status`, mounted at
 * /api/v1/token, and `POST /revoke` (RFC 7009: 200 with no body whether or not the token was live;
 * 400 only for a body without a `refreshToken` string). Errors are thrown as typed errors
 * (../errors.ts) and answered by the app's jsonErrorHandler.
 */
export function tokenRouter(tokens: TokenService, options: { trustForwardedFor: boolean }): Router {
  const router = Router();
  router.get('/status', (_req, res) => {
    res.json({ status: 'ok', time: new Date().toISOString() });
  });
  router.use(express.json({ limit: '16kb' }));
  router.post('/login', async (req, res) => {
    const body = HttpError.parseInput(LoginBody, req.body);
    const answer = await tokens.login({ ...body, clientAddress: clientAddress(req, options.trustForwardedFor) });
    noStore(res).json(answer);
  });
  router.post('/refresh', async (req, res) => {
    const body = HttpError.parseInput(RefreshBody, req.body);
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
function noStore(res: express.Response): express.Response {
  return res.setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache');
}

/** The caller's address for throttling: the gateway passes it on in X-Forwarded-For. */
function clientAddress(req: Request, trustForwardedFor: boolean): string {
  const forwarded = trustForwardedFor ? req.headers['x-forwarded-for'] : undefined;
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return first || req.socket.remoteAddress || 'unknown';
}
