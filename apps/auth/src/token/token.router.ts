import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { InvalidRequestError } from '../errors';
import type { TokenService } from './token.service';

const LoginBody = z.object({ username: z.string().min(1).max(256), password: z.string().min(1).max(1024) });
const RefreshBody = z.object({ refreshToken: z.string().min(1).max(512) });

/**
 * The token endpoints (spec, "Endpoints"): `POST /login`, `POST /refresh`, `GET /status`, mounted at
 * /api/v1/token. Errors are thrown as typed errors (../errors.ts) and answered by the app's jsonErrorHandler.
 */
export function tokenRouter(tokens: TokenService, options: { trustForwardedFor: boolean }): Router {
  const router = Router();
  router.get('/status', (_req, res) => {
    res.json({ status: 'ok', time: new Date().toISOString() });
  });
  router.use(express.json({ limit: '16kb' }));
  router.post('/login', async (req, res) => {
    const body = parse(LoginBody, req.body, 'a JSON body with "username" and "password" (strings) is required');
    const answer = await tokens.login({ ...body, clientAddress: clientAddress(req, options.trustForwardedFor) });
    noStore(res).json(answer);
  });
  router.post('/refresh', async (req, res) => {
    const body = parse(RefreshBody, req.body, 'a JSON body with "refreshToken" (string) is required');
    noStore(res).json(await tokens.refresh(body.refreshToken));
  });
  return router;
}

function parse<T>(schema: z.ZodType<T>, body: unknown, message: string): T {
  const result = schema.safeParse(body);
  if (!result.success) throw new InvalidRequestError(message);
  return result.data;
}

/** RFC 6749 5.1: token responses must not be cached. */
function noStore(res: express.Response): express.Response {
  return res.setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache');
}

/** The caller's address for throttling: the gateway passes it on in X-Forwarded-For. */
function clientAddress(req: Request, trustForwardedFor: boolean): string {
  const forwarded = trustForwardedFor ? req.headers['x-forwarded-for'] : undefined;
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return first || req.socket.remoteAddress || 'unknown';
}
