import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { throttled } from '@bedrequest/fhir-model';
import { principalOf } from './auth';
import { sendOutcome } from './fhir/fhir-response';

/**
 * decisions.md, "Limits": rate limiting answers 429 with Retry-After. Per authenticated party and
 * per gateway process (in memory: the gateway must keep working when Redis is down), so the
 * effective limit scales with the number of gateway replicas.
 */
export function rateLimitPerParty(pointsPerSecond: number): RequestHandler {
  const limiter = new RateLimiterMemory({ points: pointsPerSecond, duration: 1 });
  return async (req, res, next) => {
    try {
      await limiter.consume(principalOf(res).partyId);
      next();
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) return next(rejection);
      res.setHeader('Retry-After', String(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000))));
      const message = `more than ${pointsPerSecond} requests per second`;
      if (req.originalUrl.startsWith('/api/v2/fhir')) return sendOutcome(res, throttled(message), 429);
      res.status(429).json({ error: 'too_many_requests', message });
    }
  };
}
