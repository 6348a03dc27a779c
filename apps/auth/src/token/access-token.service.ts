import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { ACCESS_TOKEN_ALGORITHM, type SigningKeys } from '../keys/signing-keys';
import type { UserAccount } from '../users/user';

/** Spec, "Limits": an access token is valid for one hour (`expiresIn` = 3600). */
export const ACCESS_TOKEN_LIFETIME_SECONDS = 3600;

/** RFC 9068 `typ` of JWT access tokens; the gateway requires it, so no other JWT of ours passes as one. */
export const ACCESS_TOKEN_TYPE = 'at+jwt';

/** Milliseconds since the epoch; injected so that tests can move the clock. */
export type Clock = () => number;

/**
 * Signs access tokens carrying who the party is: `sub` (user id), `role`, `ik` (IK numbers),
 * `fhirBase` (referrers), plus `jti`, `iss`, `aud`, `iat`, `exp`.
 */
export class AccessTokenIssuer {
  constructor(
    private readonly options: { keys: SigningKeys; issuer: string; audience: string; now: Clock },
  ) {}

  async issue(user: UserAccount): Promise<string> {
    const issuedAt = Math.floor(this.options.now() / 1000);
    const { kid, privateKey } = this.options.keys.current;
    return new SignJWT({
      role: user.role,
      ik: [...user.ikNumbers],
      ...(user.role === 'referrer' ? { fhirBase: user.fhirBase } : {}),
    })
      .setProtectedHeader({ alg: ACCESS_TOKEN_ALGORITHM, kid, typ: ACCESS_TOKEN_TYPE })
      .setSubject(user.id)
      .setJti(randomUUID())
      .setIssuer(this.options.issuer)
      .setAudience(this.options.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + ACCESS_TOKEN_LIFETIME_SECONDS)
      .sign(privateKey);
  }
}
