import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { InternalClient } from '@bedrequest/http';
import { CORRELATION_HEADER, clientAddressOf } from '@bedrequest/observability';
import { errorHandler } from '../http-errors';
import { requireJsonBody } from '../json-body';

/** The auth service's answer headers a caller needs: RFC 6749 §5.1 (and RFC 7009 §2.2 for revocations) forbids caching token responses. */
const PASSED_HEADERS = ['content-type', 'retry-after', 'www-authenticate', 'cache-control', 'pragma'];

/**
 * The token endpoints (login, refresh, revoke, status, and oauth2 for system clients) are served by the auth service; the gateway
 * forwards them unchanged, so callers see one base address. The request body goes on unread once it
 * is there and JSON by its content type (auth parses it and answers malformed JSON and wrong fields
 * itself), the forwarded headers are an allow-list each way, and auth unavailable is 503 with
 * Retry-After.
 */
export function tokenProxyRouter(auth: InternalClient, logger: Logger): Router {
  const router = Router();
  const forward = async (req: Request, res: Response) => {
    // Express hands a HEAD to the GET route: auth is asked the GET (RFC 9110 §9.3.2, HEAD is GET
    // without the content), and send() leaves the body off the answer to a HEAD.
    const reads = req.method === 'GET' || req.method === 'HEAD';
    const answer = await auth.raw(
      {
        method: reads ? 'GET' : 'POST',
        path: req.originalUrl,
        ...(!reads && Buffer.isBuffer(req.body) ? { body: req.body, contentType: req.headers['content-type'] ?? 'application/json' } : {}),
        correlationId: String(req.headers[CORRELATION_HEADER]),
        // The caller's address for auth's login throttling (auth believes it from the gateway, a trusted proxy).
        headers: { 'x-forwarded-for': clientAddressOf(req) },
      },
      PASSED_HEADERS,
    );
    res.status(answer.status).set(answer.headers);
    // An answer without a body (a revocation's 200) stays one: send() would label it application/octet-stream.
    if (answer.body.length === 0) return void res.end();
    res.send(answer.body);
  };
  router.get('/status', forward);
  router.post(['/login', '/refresh', '/revoke'], requireJsonBody(), express.raw({ type: () => true, limit: '16kb' }), forward);
  // A system client's token request (RFC 6749 4.4, form-encoded): auth checks the form and answers
  // its errors in RFC 6749 5.2's form (docs/parties.md, "System clients and scopes").
  router.post('/oauth2', express.raw({ type: () => true, limit: '16kb' }), forward);
  router.use(errorHandler(logger));
  return router;
}

/** The client of the auth service's token endpoints. */
export function authTokenClient(authUrl: string, timeoutMs = 10_000): InternalClient {
  return new InternalClient({ service: 'auth', baseUrl: authUrl, timeoutMs, unavailableMessage: 'authentication service unavailable', connections: 16 });
}
