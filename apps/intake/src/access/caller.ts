import type { Request, Response } from 'express';
import { clientAddressOf } from '@bedrequest/observability';
import { principalOf } from '@bedrequest/tokens';
import type { Viewer } from './access-policy';

/** Who reads: the policy's viewer, the access token's `sub`, and the client's address the gateway forwarded. */
export interface Caller {
  viewer: Viewer;
  user: string;
  address?: string;
}

/**
 * The party of the verified token, as the access policy sees it, its user and the client's
 * address for the audit trail: the address the gateway forwards in `X-Forwarded-For`, believed
 * because the gateway is a trusted proxy (`TRUSTED_PROXIES`); it grants nothing.
 */
export function callerOf(req: Request, res: Response): Caller {
  const principal = principalOf(res);
  const viewer: Viewer = principal.role === 'referrer' ? { role: 'referrer', partyId: principal.partyId } : { role: 'clinic', ikNumbers: principal.ikNumbers };
  // At most the length of an IPv6 address with zone.
  const address = clientAddressOf(req).slice(0, 64);
  return { viewer, user: principal.partyId, ...(address ? { address } : {}) };
}
