import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';

/**
 * The browser's address, across the inbox's loopback call to the gateway's own API.
 *
 * The inbox reads and answers through the public API (InboxApi), so that API sees the gateway's
 * own loopback address for every person's access, and the audit trail (issue 14) would record that
 * instead of the person's. The gateway is the edge: it believes no `X-Forwarded-For` a caller sends.
 * It believes the inbox's, which comes with this secret: random, made once per process, never
 * configured, logged (the access log keeps no headers) or sent anywhere else. The inbox runs in the
 * same process as the API it calls and calls only the address that process listens on, so nobody
 * else can learn it. A module constant rather than an argument: both ends are in this process by
 * construction, and every route of the API finds the address through one function
 * (`clientAddressOf`) without being handed anything.
 */
const SECRET = randomBytes(32);
const SECRET_HEADER = 'x-bedrequest-inbox';

/** The headers InboxApi sends with every call it makes for a person: the browser's address, vouched for. */
export function inboxForwardingHeaders(clientAddress: string): Record<string, string> {
  return clientAddress ? { 'x-forwarded-for': clientAddress, [SECRET_HEADER]: SECRET.toString('base64url') } : {};
}

/**
 * The address the inbox forwarded, for a request that carries this process's secret; undefined for
 * any other request (whatever `X-Forwarded-For` it sends). Compared in constant time, so that the
 * answer's timing tells nothing about how much of a guess was right.
 */
export function addressForwardedByInbox(req: Request): string | undefined {
  const vouched = req.header(SECRET_HEADER);
  if (vouched === undefined) return undefined;
  const given = Buffer.from(vouched, 'base64url');
  if (given.length !== SECRET.length || !timingSafeEqual(given, SECRET)) return undefined;
  const address = req.header('x-forwarded-for')?.trim();
  return address ? address.slice(0, 64) : undefined;
}
