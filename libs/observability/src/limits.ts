import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

/**
 * Counts one attempt (or `points`, e.g. a body's bytes) against `limiter` (rate-limiter-flexible): 0
 * while within the limit, else the milliseconds until it frees up again (the library rejects the
 * attempt that goes over it with a RateLimiterRes, which is no error here, and counts it all the
 * same). Other errors (the store) are thrown.
 */
export async function msUntilAllowed(limiter: RateLimiterAbstract, key: string, points = 1): Promise<number> {
  try {
    await limiter.consume(key, points);
    return 0;
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return Math.max(rejection.msBeforeNext, 1);
    throw rejection;
  }
}
