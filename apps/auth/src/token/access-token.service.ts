import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  ACCESS_TOKEN_TYPE,
  SERVICE_ROLE,
  SERVICE_TOKEN_LIFETIME_SECONDS,
  TOKEN_ALGORITHM,
  accessClaimsOf,
} from '@bedrequest/tokens';
import type { SigningKeys } from '../keys/signing-keys';
import type { Party } from '../parties/party';
import type { Member } from '../users/user';

/** SMART Backend Services' recommended lifetime of a system client's token: five minutes; it asks again with a new assertion. */
export const CLIENT_TOKEN_LIFETIME_SECONDS = 300;

/** Milliseconds since the epoch; injected so that tests can move the clock. */
export type Clock = () => number;

export interface IssuerOptions {
  keys: SigningKeys;
  issuer: string;
  now: Clock;
}

/**
 * Signs access tokens carrying who the party is: `sub` (the party's id), `role`, `ik` (IK numbers),
 * `fhirBase` (referrers), and who of it acts: `act` (the user's id and display name; docs/parties.md,
 * "Tokens"), plus `jti`, `iss`, `aud`, `iat`, `exp` (@bedrequest/tokens reads them back).
 */
export class AccessTokenIssuer {
  constructor(private readonly options: IssuerOptions & { audience: string }) {}

  /** The issuer's clock, for taking the moment a login or refresh began (TokenService). */
  now(): number {
    return this.options.now();
  }

  /**
   * `issuedAtMs`: when the login or refresh began, before the person was read, so that a disable
   * committed meanwhile is at or after the token's `iat` and revokes it (docs/parties.md, "Disabling").
   */
  issue(user: Member, issuedAtMs: number = this.options.now()): Promise<string> {
    return sign(this.options, issuedAtMs, {
      claims: accessClaimsOf(user.party, user),
      subject: user.party.id,
      audience: this.options.audience,
      lifetimeSeconds: ACCESS_TOKEN_LIFETIME_SECONDS,
    });
  }

  /**
   * A system client's token (docs/parties.md, "System clients and scopes"): its party's claims, `act`
   * the client (`client:<id>`, so that disabling it revokes its tokens), the granted `scope` and
   * `client_id` (RFC 9068 2.2). `issuedAtMs` as for `issue`: taken before the client was read.
   */
  issueForClient(party: Party, client: { id: string; name: string }, scopes: readonly string[], issuedAtMs: number): Promise<string> {
    return sign(this.options, issuedAtMs, {
      claims: { ...accessClaimsOf(party, { id: `client:${client.id}`, displayName: client.name }), scope: scopes.join(' '), client_id: client.id },
      subject: party.id,
      audience: this.options.audience,
      lifetimeSeconds: CLIENT_TOKEN_LIFETIME_SECONDS,
    });
  }
}

/**
 * Signs service tokens: `sub` the service's name, `role: service`, for the services' own audience
 * only, so that no service token passes the public API and no party token passes as a service.
 */
export class ServiceTokenIssuer {
  readonly lifetimeSeconds = SERVICE_TOKEN_LIFETIME_SECONDS;

  constructor(private readonly options: IssuerOptions & { serviceAudience: string }) {}

  issue(service: string): Promise<string> {
    return sign(this.options, this.options.now(), {
      claims: { role: SERVICE_ROLE },
      subject: service,
      audience: this.options.serviceAudience,
      lifetimeSeconds: this.lifetimeSeconds,
    });
  }
}

function sign(
  options: IssuerOptions,
  issuedAtMs: number,
  token: { claims: Record<string, unknown>; subject: string; audience: string; lifetimeSeconds: number },
): Promise<string> {
  const issuedAt = Math.floor(issuedAtMs / 1000);
  const { kid, privateKey } = options.keys.current;
  return new SignJWT(token.claims)
    .setProtectedHeader({ alg: TOKEN_ALGORITHM, kid, typ: ACCESS_TOKEN_TYPE })
    .setSubject(token.subject)
    .setJti(randomUUID())
    .setIssuer(options.issuer)
    .setAudience(token.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + token.lifetimeSeconds)
    .sign(privateKey);
}
