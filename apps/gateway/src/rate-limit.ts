import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { HttpError } from '@bedrequest/http';
import { msUntilAllowed } from '@bedrequest/observability';
import { principalOf } from '@bedrequest/tokens';
import { answerError } from './http-errors';

/**
 * The window a party's body bytes are counted over. Long enough that the least budget config.ts
 * allows (1 MiB per second) still holds the largest bundle (10 MiB, fhir/fhir-body.ts) in one window.
 */
export const BODY_BYTES_WINDOW_SECONDS = 10;

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
  /** Request body bytes per second per party, over all gateway processes, counted over windows of BODY_BYTES_WINDOW_SECONDS. */
  bytesPerSecond: number;
  /** How long a refusal is held before it is answered, at most (RefusalHold). */
  refusalHoldMs: number;
}

/**
 * The limits per authenticated party (after requireToken): its request rate and request body bytes
 * per second, and its requests and request bytes in flight (docs/api.md, "Limits"). Over any of
 * them: 429 with Retry-After, in the error form of the path. No party can take the gateway's event
 * loop or memory from the others.
 *
 * Body bytes are charged as they arrive, refused bodies included (Node reads and drops a body the
 * answer left unread). A declared length (Content-Length) is charged before a byte of the body is
 * read: a party over its budget is answered at once, and its body is never parsed, which is what
 * costs (a 2.4 MiB bundle of 40,000 performers takes the event loop for tens of milliseconds to
 * parse; bench figure 9). A body without a length (chunked) is refused on arrival when the party has
 * nothing left, else charged once read and refused before it is parsed when it took more than was
 * left (chargeUnlengthedBody, called by json-body.ts).
 */
export function partyLimits(options: PartyLimitOptions): RequestHandler {
  const rate = rateLimiter(options.redis, 'gateway:rate:party', options.requestsPerSecond, 1);
  const bytesPerWindow = options.bytesPerSecond * BODY_BYTES_WINDOW_SECONDS;
  const bodyBytes = rateLimiter(options.redis, 'gateway:bytes:party', bytesPerWindow, BODY_BYTES_WINDOW_SECONDS);
  const bytesRefusal = `more than ${options.bytesPerSecond} bytes of request bodies per second`;
  const inFlight = new Map<string, { requests: number; bytes: number }>();
  const hold = new RefusalHold(options.refusalHoldMs);
  return async (req, res, next) => {
    const party = principalOf(res).partyId;
    const bytes = Number(req.headers['content-length'] ?? 0) || 0;
    const current = inFlight.get(party) ?? { requests: 0, bytes: 0 };
    if (current.requests + 1 > options.concurrentRequests) {
      return hold.refuse(req, res, `more than ${options.concurrentRequests} requests of the party at once`, 1_000);
    }
    if (current.bytes + bytes > options.bytesInFlight) {
      return hold.refuse(req, res, `more than ${options.bytesInFlight} bytes of the party's requests at once`, 1_000);
    }
    // Counted in flight before the rate is asked (an await), so that requests arriving meanwhile see
    // it, and until the answer is sent, a held refusal included.
    current.requests += 1;
    current.bytes += bytes;
    inFlight.set(party, current);
    res.once('close', () => {
      current.requests -= 1;
      current.bytes -= bytes;
      if (current.requests === 0) inFlight.delete(party);
    });
    const unlengthed = bytes === 0 && req.headers['transfer-encoding'] !== undefined;
    const [waitMs, bodyWaitMs, left] = await Promise.all([
      msUntilAllowed(rate, party),
      bytes > 0 ? msUntilAllowed(bodyBytes, party, bytes) : 0,
      unlengthed ? budgetLeft(bodyBytes, party) : undefined,
    ]);
    if (waitMs > 0) return hold.refuse(req, res, `more than ${options.requestsPerSecond} requests per second`, waitMs);
    // A body larger than a whole window is larger than any route takes (BODY_BYTES_WINDOW_SECONDS):
    // charged, but left to its route's 413, which tells the caller more than a 429 would.
    const bodyRefusedMs = bytes > bytesPerWindow ? 0 : left && left.points <= 0 ? Math.max(left.msBeforeNext, 1) : bodyWaitMs;
    if (bodyRefusedMs > 0) return hold.refuse(req, res, bytesRefusal, bodyRefusedMs);
    if (left) {
      const budget: UnlengthedBodyBudget = {
        bytesLeft: left.points,
        refusal: () => new HttpError('too_many_requests', bytesRefusal, { retryAfterSeconds: Math.max(1, Math.ceil(left.msBeforeNext / 1000)) }),
        // Counted whatever the answer; a failure to count (the store) loses one body's bytes, not the request.
        charge: (read) => void msUntilAllowed(bodyBytes, party, read).catch(() => undefined),
      };
      res.locals[UNLENGTHED_BODY_BUDGET] = budget;
    }
    next();
  };
}

const UNLENGTHED_BODY_BUDGET = 'unlengthedBodyBudget';

interface UnlengthedBodyBudget {
  /** What was left of the party's budget when the request arrived. */
  bytesLeft: number;
  refusal(): HttpError;
  charge(bytes: number): void;
}

/**
 * For the body reader (json-body.ts), once a body without a declared length is read and before it
 * is parsed: charges its bytes to the party, and throws a 429 when they are more than the party had
 * left. Does nothing for a body with a declared length (charged on arrival) or outside partyLimits.
 */
export function chargeUnlengthedBody(res: Response, bytes: number): void {
  const budget = res.locals[UNLENGTHED_BODY_BUDGET] as UnlengthedBodyBudget | undefined;
  if (!budget) return;
  budget.charge(bytes);
  if (bytes > budget.bytesLeft) throw budget.refusal();
}

/** What is left of `key`'s budget, consuming nothing, and when its window ends. */
export async function budgetLeft(limiter: RateLimiterAbstract, key: string): Promise<{ points: number; msBeforeNext: number }> {
  try {
    const state = await limiter.consume(key, 0);
    return { points: state.remainingPoints, msBeforeNext: state.msBeforeNext };
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return { points: 0, msBeforeNext: rejection.msBeforeNext };
    throw rejection;
  }
}

/**
 * A limiter of `points` per `duration` seconds: in Redis, with the same limit in memory as insurance
 * while Redis is down; in memory alone without Redis. A key that has consumed `blockInMemoryAt`
 * (by default one over its limit) is refused from memory until its window ends
 * (inMemoryBlockOnConsumed): a party flooding past its limit costs no Redis round trip per request
 * (under the bench's abuse these were the largest item of the gateway's busy time), and its
 * refusals in that window change nothing the count in Redis would decide.
 */
export function rateLimiter(redis: Redis | undefined, keyPrefix: string, points: number, duration: number, blockInMemoryAt = points + 1): RateLimiterAbstract {
  const inMemory = new RateLimiterMemory({ keyPrefix, points, duration });
  if (!redis) return inMemory;
  return new RateLimiterRedis({
    storeClient: redis,
    keyPrefix,
    points,
    duration,
    inMemoryBlockOnConsumed: blockInMemoryAt,
    // While Redis is down the insurance answers at once, without waiting for it.
    rejectIfRedisNotReady: true,
    insuranceLimiter: inMemory,
  });
}

/**
 * Refusals (429) held until the caller could be served again, at most `maxMs`, then answered with
 * the Retry-After that is left, at least 1 (a positive number, as every 429 of the service has had).
 * A caller that waits for each answer, as HTTP/1.1 clients do on a connection, then sends no faster
 * over its limit than its connections allow: a flood over the limit costs the gateway a timer per
 * connection and hold, not an answer per request (unheld, one abusing client had the gateway answer
 * about 2,400 refusals a second, bench figure 9). A caller that keeps to Retry-After waits at most
 * one second longer than before. A refusal of requests or bytes at once is held `maxMs` (when a
 * place frees is not known). Held refusals of a party count among its requests in flight
 * (partyLimits); at most MAX_HELD_REFUSALS are held per process, then refusals are answered at once.
 * A caller that goes away meanwhile frees its place, and is not answered.
 */
export class RefusalHold {
  private held = 0;

  constructor(private readonly maxMs: number) {}

  /** Answers 429 (with Retry-After) once `msUntilAllowed`, or `maxMs`, has passed. */
  refuse(req: Request, res: Response, message: string, msUntilAllowed: number): void {
    if (res.destroyed) return; // gone while the limits were asked
    const holdMs = this.held < MAX_HELD_REFUSALS ? Math.min(msUntilAllowed, this.maxMs) : 0;
    const retryAfterSeconds = Math.max(1, Math.ceil((msUntilAllowed - holdMs) / 1000));
    const answer = () => answerError(req, res, new HttpError('too_many_requests', message, { retryAfterSeconds }));
    if (holdMs <= 0) return answer();
    this.held += 1;
    const timer = setTimeout(() => {
      res.off('close', gone);
      this.held -= 1;
      if (!res.headersSent && !res.destroyed) answer();
    }, holdMs);
    const gone = () => {
      clearTimeout(timer);
      this.held -= 1;
    };
    res.once('close', gone);
  }
}

/** Refusals held at once per limit and process (RefusalHold): each is an open connection and a timer. */
const MAX_HELD_REFUSALS = 4_096;
