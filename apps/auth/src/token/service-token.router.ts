import { createHash, timingSafeEqual } from 'node:crypto';
import { Router } from 'express';
import type { ServiceTokenAnswer } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { ServiceName } from '@bedrequest/tokens';
import type { ServiceTokenIssuer } from './access-token.service';

/**
 * `POST /internal/service-tokens` (mounted at /internal; never proxied by the gateway): a short-lived
 * service token for a service of the stack that authenticates with its name and the shared service
 * client secret (`Authorization: Basic`, RFC 6749 §2.3.1, as in a client-credentials grant). The
 * services use it where no party stands behind a call, e.g. reading routing's clinic registry.
 * `clientSecrets` are the secrets taken: SERVICE_CLIENT_SECRET and, during a rotation, the other one.
 * Anything else is 401 with `WWW-Authenticate: Basic`, whatever was wrong.
 */
export function serviceTokenRouter(issuer: ServiceTokenIssuer, clientSecrets: readonly string[]): Router {
  const expected = clientSecrets.map((secret) => digest(secret));
  const router = Router();
  router.post('/service-tokens', async (req, res) => {
    const client = basicCredentials(req.headers.authorization);
    const service = ServiceName.safeParse(client?.name);
    const presented = client ? digest(client.secret) : undefined;
    // Every secret is compared, so that the time taken does not tell which one matched.
    const matched = presented ? expected.filter((secret) => timingSafeEqual(presented, secret)).length > 0 : false;
    if (!client || !service.success || !matched) {
      res.setHeader('WWW-Authenticate', 'Basic realm="bedrequest-services"');
      throw new HttpError('unauthorized', 'a service name and the service client secret are required');
    }
    res.setHeader('Cache-Control', 'no-store').setHeader('Pragma', 'no-cache');
    res.json({ accessToken: await issuer.issue(service.data), tokenType: 'Bearer', expiresIn: issuer.lifetimeSeconds } satisfies ServiceTokenAnswer);
  });
  return router;
}

/** Compared as digests: equal lengths for timingSafeEqual whatever was sent. */
function digest(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

function basicCredentials(header: string | undefined): { name: string; secret: string } | undefined {
  const match = /^Basic[ ]+([A-Za-z0-9+/]+=*)\s*$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 ? { name: decoded.slice(0, colon), secret: decoded.slice(colon + 1) } : undefined;
}
