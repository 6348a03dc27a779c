import type { Request, Response } from 'express';
import { clientAddressOf } from '@bedrequest/observability';
import { principalOf } from '@bedrequest/tokens';
import type { Viewer } from './access-policy';

/**
 * Who reads: the policy's viewer (the party), the person of the party (the access token's
 * `act.sub`, and their display name where it names one), and the client's address the gateway forwarded.
 */
export interface Caller {
  viewer: Viewer;
  user: string;
  userName?: string;
  address?: string;
}

/**
 * The party of the verified token, as the access policy sees it, its person and the client's
 * address for the audit trail: the address the gateway forwards in `X-Forwarded-For`, believed
 * because the gateway is a trusted proxy (`TRUSTED_PROXIES`); it grants nothing.
 */
export function callerOf(req: Request, res: Response): Caller {
  const principal = principalOf(res);
  const viewer: Viewer = principal.role === 'referrer' ? { role: 'referrer', partyId: principal.partyId } : { role: 'clinic', ikNumbers: principal.ikNumbers };
  // At most the length of an IPv6 address with zone.
  const address = clientAddressOf(req).slice(0, 64);
  // The party owns and sees; the audit trail names the person (docs/api.md, "Audit trail").
  return { viewer, user: principal.userId, ...(principal.userName === undefined ? {} : { userName: principal.userName }), ...(address ? { address } : {}) };
}

/** The caller as an AuditEvent's agent names them: the person, their display name, their address. */
export function personOf(caller: Caller): { user: string; name?: string; address?: string } {
  return { user: caller.user, ...(caller.userName === undefined ? {} : { name: caller.userName }), ...(caller.address ? { address: caller.address } : {}) };
}
