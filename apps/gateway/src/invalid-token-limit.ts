import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { compile as compileAddressList } from 'proxy-addr';
import { HttpError } from '@bedrequest/http';
import { addressKeyOf, clientAddressOf, msUntilAllowed } from '@bedrequest/observability';
import { bearerTokenOf, type TokenVerifier } from '@bedrequest/tokens';
import { RefusalHold, budgetLeft, rateLimiter } from './rate-limit';

export interface InvalidTokenLimitOptions {
  /** Where the counts are shared by every gateway process; without it (or while it is down) each process counts alone. */
  redis: Redis | undefined;
  /** The verifier of the guard: what it already knows to be valid passes untouched. */
  verifier: TokenVerifier;
  /** Invalid tokens per second an address may send before its tokens are no longer verified. */
  perSecond: number;
  /** Addresses and CIDRs (or proxy-addr's names, e.g. `loopback`) it never limits. */
  exempt: readonly string[];
  refusalHoldMs: number;
}

/**
 * The limit per client address of invalid tokens (docs/operations.md, "Limits per client address"),
 * around a token guard (requireToken). A token the verifier knows to be valid passes untouched:
 * parties behind one address (a portal, a NAT) are limited per party, never by their address. Any
 * other token is held against its address's budget before it is verified: an address that has sent
 * `perSecond` tokens refused as invalid (401) within the second is answered 429 without verification
 * until the second ends, a new valid token of it included (verifying it is the work the limit saves).
 * Only a refusal counts, after its verification and before it is answered: valid tokens, however
 * many arrive at once, cost their address nothing. Requests arriving together before the count
 * reaches the budget are all verified; what bounds those is the ingress's connection limit.
 */
export function invalidTokenLimit(options: InvalidTokenLimitOptions): (guard: RequestHandler) => RequestHandler {
  // Blocked in this process's memory from the budget's last refusal on: a flood costs no Redis round trip.
  const refused = rateLimiter(options.redis, 'gateway:rate:address:invalid-token', options.perSecond, 1, options.perSecond);
  const isExempt = compileAddressList([...options.exempt]);
  const hold = new RefusalHold(options.refusalHoldMs);
  const refusal = `more than ${options.perSecond} requests with an invalid access token per second from one address`;
  return (guard) => async (req, res, next) => {
    const token = bearerTokenOf(req.headers.authorization);
    const address = clientAddressOf(req);
    // No token (or no bearer token) costs no verification: the guard answers it at once.
    if (token === undefined || options.verifier.knows(token) || isExempt(address, 0)) return guard(req, res, next);
    const key = addressKeyOf(address);
    // The store failing leaves the token to be verified: the limit protects, it does not decide.
    const left = await budgetLeft(refused, key).catch(() => ({ points: 1, msBeforeNext: 0 }));
    if (left.points <= 0) return hold.refuse(req, res, refusal, Math.max(left.msBeforeNext, 1));
    return guard(req, res, (error?: unknown) => {
      if (!(error instanceof HttpError && error.status === 401)) return next(error);
      void msUntilAllowed(refused, key)
        .catch(() => 0)
        .then(() => next(error));
    });
  };
}
