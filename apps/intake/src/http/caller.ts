import type { Request, Response } from 'express';
import { principalOf } from '@bedrequest/tokens';
import type { Caller } from '../audit/audit-trail.service';

/**
 * The party of the verified token, as the visibility rules see it, its user and the client's
 * address for the audit trail (the first address of `X-Forwarded-For`, which the gateway sends: it
 * grants nothing).
 */
export function callerOf(req: Request, res: Response): Caller {
  const principal = principalOf(res);
  const viewer = principal.role === 'referrer' ? { role: 'referrer' as const, partyId: principal.partyId } : { role: 'clinic' as const, ikNumbers: principal.ikNumbers };
  const address = clientAddressOf(req);
  return { viewer, user: principal.partyId, ...(address ? { address } : {}) };
}

/** At most the length of an IPv6 address with zone. */
function clientAddressOf(req: Request): string | undefined {
  const first = req.header('x-forwarded-for')?.split(',')[0]?.trim();
  return first ? first.slice(0, 64) : undefined;
}
