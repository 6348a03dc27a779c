import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { compile as compileAddressList } from 'proxy-addr';
import { RateLimiterMemory, RateLimiterRedis, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { HttpError } from '@bedrequest/http';
import { addressKeyOf, clientAddressOf, msUntilAllowed } from '@bedrequest/observability';
import { principalOf } from '@bedrequest/tokens';
import { answerError } from './http-errors';

export interface PartyLimitOptions {
  /**
   * The shared store of the request rates (Redis), so that a party has one budget whatever number
   * of gateway processes serve it; without one, or while it is down, each process counts in memory.
   */
  redis: Redis | undefined;
  /** Requests per second per party, over all gateway processes. */
  requestsPerSecond: number;
  /** Requests of one party being answered at once, per gateway process. */
  concurrentRequests: number;
  /** Declared request body bytes (Content-Length) of one party being answered at once, per gateway process. */
  bytesInFlight: number;
}

/**
 * The limits per authenticated party (after requireToken): its request rate, and its requests and
 * request bytes in flight (docs/api.md, "Limits"). Over any of them: 429 with Retry-After, in the
 * error form of the path. No party can take the gateway's event loop or memory from the others.
 */
export function partyLimits(options: PartyLimitOptions): RequestHandler {
  const rate = rateLimiter(options.redis, 'gateway:rate:party', options.requestsPerSecond);
  const inFlight = new Map<string, { requests: number; bytes: number }>();
  return async (req, res, next) => {
    const party = principalOf(res).partyId;
    const bytes = Number(req.headers['content-length'] ?? 0) || 0;
    const current = inFlight.get(party) ?? { requests: 0, bytes: 0 };
    if (current.requests + 1 > options.concurrentRequests) {
      return tooMany(req, res, `more than ${options.concurrentRequests} requests of the party at once`, 1);
    }
    if (current.bytes + bytes > options.bytesInFlight) {
      return tooMany(req, res, `more than ${options.bytesInFlight} bytes of the party's requests at once`, 1);
    }
    // Counted in flight before the rate is asked (an await), so that requests arriving meanwhile see it.
    current.requests += 1;
    current.bytes += bytes;
    inFlight.set(party, current);
    const release = () => {
      current.requests -= 1;
      current.bytes -= bytes;
      if (current.requests === 0) inFlight.delete(party);
    };
    const waitMs = await msUntilAllowed(rate, party);
    if (waitMs > 0) {
      release();
      return tooMany(req, res, `more than ${options.requestsPerSecond} requests per second`, Math.ceil(waitMs / 1000));
    }
    res.once('close', release);
    next();
  };
}

/**
 * The limit per client address (its IPv6 /64) of the routes without a token: the token endpoints,
 * the CapabilityStatement and conformance resources, the OpenAPI document, the service index.
 * `exempt` lists addresses and CIDRs (or proxy-addr's names, e.g. `loopback`) it never limits.
 */
export function addressLimit(options: { redis: Redis | undefined; perSecond: number; exempt: readonly string[] }): RequestHandler {
  const rate = rateLimiter(options.redis, 'gateway:rate:address', options.perSecond);
  const isExempt = compileAddressList([...options.exempt]);
  return async (req, res, next) => {
    const address = clientAddressOf(req);
    if (isExempt(address, 0)) return next();
    const waitMs = await msUntilAllowed(rate, addressKeyOf(address));
    if (waitMs > 0) return tooMany(req, res, `more than ${options.perSecond} requests per second from one address`, Math.ceil(waitMs / 1000));
    next();
  };
}

/** A limiter of `points` per second: in Redis, with the same limit in memory as insurance while Redis is down; in memory alone without Redis. */
function rateLimiter(redis: Redis | undefined, keyPrefix: string, points: number): RateLimiterAbstract {
  const inMemory = new RateLimiterMemory({ keyPrefix, points, duration: 1 });
  if (!redis) return inMemory;
  // rejectIfRedisNotReady: while Redis is down the insurance answers at once, without waiting for it.
  return new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration: 1, rejectIfRedisNotReady: true, insuranceLimiter: inMemory });
}

function tooMany(req: Request, res: Response, message: string, retryAfterSeconds: number): void {
  answerError(req, res, new HttpError('too_many_requests', message, { retryAfterSeconds: Math.max(1, retryAfterSeconds) }));
}
