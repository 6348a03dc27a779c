import { z } from 'zod';
import { ANY_ROLE, type Role } from './roles';
import { grantedPermissions, type Permission } from './scopes';

/** The one algorithm tokens are signed with (the auth service's Ed25519 keys); `none` and HS* never pass. */
export const TOKEN_ALGORITHM = 'EdDSA';

/** RFC 9068 `typ` of JWT access tokens, parties' and services' alike: no other JWT of ours passes as one. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** Spec, "Limits": a party's access token is valid for one hour (`expiresIn` = 3600). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

/** A service token lives minutes: it is fetched again by the service itself, never handed to a person. */
export const SERVICE_TOKEN_LIFETIME_SECONDS = 300;

export { ANY_ROLE, type Role };

/** Who is calling, taken from a verified access token (docs/parties.md, "Tokens"). */
export interface Principal {
  /** The party (`sub`): it owns requests, Tasks, documents and subscriptions, and the limits count per party. */
  readonly partyId: string;
  /** The person of the party who acts (`act.sub`); a token without `act` (an earlier auth's) is its party's only user, whose id the party took. */
  readonly userId: string;
  /** The person's display name (`act.name`), where the token names one. */
  readonly userName?: string;
  readonly role: Role;
  /** The IK numbers the party acts for: one or more for a referrer, exactly one for a clinic. */
  readonly ikNumbers: readonly string[];
  /** A referrer's registered FHIR base URL (spec, Authentication 10); absent for clinics. */
  readonly fhirBase?: string;
  /**
   * What a system client's token was granted (its `scope` claim; docs/parties.md, "System clients
   * and scopes"). Absent for a person's token, which keeps every right of its role.
   */
  readonly scopes?: ReadonlySet<Permission>;
  /** The system client a token was issued to (`client_id`, RFC 9068 2.2); absent for a person's. */
  readonly clientId?: string;
}

/** The role claim of a service token: a service of the stack calling another without a party behind it. */
export const SERVICE_ROLE = 'service';

/** A service's name as its tokens carry it in `sub`: "gateway", "intake". */
export const ServiceName = z.string().regex(/^[a-z][a-z0-9-]{0,39}$/);

const IkNumber = z.string().regex(/^[0-9]{9}$/);

/** The person acting for the party (RFC 8693's actor claim): their user id, and their display name. */
export const ActorClaim = z.object({ sub: z.string().min(1), name: z.string().min(1).max(200).optional() });
export type ActorClaim = z.infer<typeof ActorClaim>;

/** A system client's grant: RFC 9068's `scope` (space-separated) and `client_id`; a person's token has neither. */
const ClientClaims = { scope: z.string().max(2000).optional(), client_id: z.string().min(1).max(200).optional() };

/**
 * The claims of a party's access token besides the registered ones (`iss`, `aud`, `jti`, `iat`,
 * `exp`): `sub` is the party, `act` the person (or the system client, `client:<id>`). `act` is
 * optional: tokens of an earlier auth have none.
 */
export const PartyClaims = z.discriminatedUnion('role', [
  z.object({
    sub: z.string().min(1),
    role: z.literal('referrer'),
    ik: z.array(IkNumber).min(1),
    fhirBase: z.string().min(1),
    act: ActorClaim.optional(),
    ...ClientClaims,
  }),
  z.object({ sub: z.string().min(1), role: z.literal('clinic'), ik: z.array(IkNumber).length(1), act: ActorClaim.optional(), ...ClientClaims }),
]);
export type PartyClaims = z.infer<typeof PartyClaims>;

/** The claims of a service token besides the registered ones. */
export const ServiceClaims = z.object({ sub: ServiceName, role: z.literal(SERVICE_ROLE) });

/**
 * The claims the auth service signs for a person of a party (docs/parties.md, "Tokens"): the party's
 * role, IK numbers and FHIR base, and `act`, the person. `sub` (the party's id) is set by the issuer.
 */
export function accessClaimsOf(
  party: { role: 'referrer'; ikNumbers: readonly string[]; fhirBase: string } | { role: 'clinic'; ikNumbers: readonly string[] },
  user: { id: string; displayName: string },
): ({ role: 'referrer'; ik: string[]; fhirBase: string } | { role: 'clinic'; ik: string[] }) & { act: ActorClaim } {
  const act = { sub: user.id, name: user.displayName };
  return party.role === 'referrer'
    ? { role: 'referrer', ik: [...party.ikNumbers], fhirBase: party.fhirBase, act }
    : { role: 'clinic', ik: [...party.ikNumbers], act };
}

export function principalOfClaims(claims: PartyClaims): Principal {
  // A token without `act`: read as its party's only user until release 1.2 (docs/compatibility.md).
  const person = {
    userId: claims.act?.sub ?? claims.sub,
    ...(claims.act?.name === undefined ? {} : { userName: claims.act.name }),
    ...(claims.scope === undefined ? {} : { scopes: grantedPermissions(claims.scope) }),
    ...(claims.client_id === undefined ? {} : { clientId: claims.client_id }),
  };
  return claims.role === 'referrer'
    ? { partyId: claims.sub, ...person, role: claims.role, ikNumbers: claims.ik, fhirBase: claims.fhirBase }
    : { partyId: claims.sub, ...person, role: claims.role, ikNumbers: claims.ik };
}
