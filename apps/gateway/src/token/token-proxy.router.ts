import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { HttpError, jsonErrorHandler, sendError } from '@bedrequest/http';
import { CORRELATION_HEADER } from '@bedrequest/observability';

/**
 * The token endpoints are served by the auth service; the gateway forwards them unchanged, so
 * callers see one base address. Hand-written on fetch (no proxy library): three small JSON
 * endpoints, and the forwarded headers are an explicit allow-list.
 */
export function tokenProxyRouter(authUrl: string, logger: Logger): Router {
  const router = Router();
  const forward = async (req: Request, res: Response) => {
    try {
      const upstream = await fetch(new URL(req.originalUrl, authUrl), {
        method: req.method,
        headers: {
          'content-type': req.headers['content-type'] ?? 'application/json',
          [CORRELATION_HEADER]: String(req.headers[CORRELATION_HEADER]),
          'x-forwarded-for': req.socket.remoteAddress ?? '',
        },
        // Forwarded as received: the auth service parses it and answers malformed JSON itself.
        body: req.method === 'GET' || !Buffer.isBuffer(req.body) ? undefined : req.body,
        signal: AbortSignal.timeout(10_000),
      });
      for (const header of ['content-type', 'retry-after', 'www-authenticate']) {
        const value = upstream.headers.get(header);
        if (value) res.setHeader(header, value);
      }
      res.status(upstream.status).send(Buffer.from(await upstream.arrayBuffer()));
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'auth service unreachable');
      sendError(res, new HttpError('unavailable', 'authentication service unavailable', { retryAfterSeconds: 5 }));
    }
  };
  router.get('/status', forward);
  router.post(['/login', '/refresh'], express.raw({ type: () => true, limit: '16kb' }), forward);
  router.use(jsonErrorHandler(logger));
  return router;
}
