import type { RequestHandler } from 'express';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { HttpError } from '@bedrequest/http';
import { principalOf } from '@bedrequest/tokens';
import { answerError } from './http-errors';

/**
 * docs/decisions.md, "Requests" (limits): rate limiting answers 429 with Retry-After. Per authenticated party and
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
      const retryAfterSeconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
      answerError(req, res, new HttpError('too_many_requests', `more than ${pointsPerSecond} requests per second`, { retryAfterSeconds }));
    }
  };
}
