import type { RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import { compile as compileAddressList } from 'proxy-addr';
import { addressKeyOf, clientAddressOf, msUntilAllowed } from '@bedrequest/observability';
import { RefusalHold, rateLimiter } from './rate-limit';

/**
 * The groups of routes without a token, each with a budget of its own per client address
 * (docs/operations.md, "Limits per client address"): a client reading the documents as fast as it
 * may still logs in and renews its tokens.
 */
export const ADDRESS_BUCKETS = {
  /** The token endpoints (/api/v1/token/…): login, refresh, revoke, status. */
  token: 'the token endpoints',
  /** What is read before a token: the CapabilityStatement and conformance resources, the OpenAPI document, the service index. */
  documents: 'the documents served without a token',
} as const;
export type AddressBucket = keyof typeof ADDRESS_BUCKETS;

export interface AddressLimitOptions {
  /** Where the counts are shared by every gateway process; without it (or while it is down) each process counts alone. */
  redis: Redis | undefined;
  /** Which group of routes this limit counts: each has its own budget per address. */
  bucket: AddressBucket;
  perSecond: number;
  /** Addresses and CIDRs (or proxy-addr's names, e.g. `loopback`) it never limits. */
  exempt: readonly string[];
  refusalHoldMs: number;
}

/**
 * The limit per client address (its IPv6 /64) of one group of the routes without a token: the
 * address is the client's, read behind the trusted proxies (clientAddressOf), never a proxy's.
 */
export function addressLimit(options: AddressLimitOptions): RequestHandler {
  const rate = rateLimiter(options.redis, `gateway:rate:address:${options.bucket}`, options.perSecond, 1);
  const isExempt = compileAddressList([...options.exempt]);
  const hold = new RefusalHold(options.refusalHoldMs);
  const refusal = `more than ${options.perSecond} requests per second from one address to ${ADDRESS_BUCKETS[options.bucket]}`;
  return async (req, res, next) => {
    const address = clientAddressOf(req);
    if (isExempt(address, 0)) return next();
    const waitMs = await msUntilAllowed(rate, addressKeyOf(address));
    if (waitMs > 0) return hold.refuse(req, res, refusal, waitMs);
    next();
  };
}
