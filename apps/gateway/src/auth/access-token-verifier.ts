import { createRemoteJWKSet, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { z } from 'zod';
import type { Principal } from './principal';

/** The one algorithm accepted (the auth service signs with Ed25519); `none` and HS* never pass. */
export const ACCESS_TOKEN_ALGORITHMS = ['EdDSA'];
/** RFC 9068 access token `typ`, set by the auth service. */
const ACCESS_TOKEN_TYPE = 'at+jwt';

/** Missing, malformed, tampered, expired or foreign token: 401. */
export class InvalidAccessTokenError extends Error {
  override name = 'InvalidAccessTokenError';
}

/** The auth service's public keys cannot be fetched, so no token can be checked: 503. */
export class SigningKeysUnavailableError extends Error {
  override name = 'SigningKeysUnavailableError';
}

export interface AccessTokenVerifier {
  /** The principal of a valid token; InvalidAccessTokenError or SigningKeysUnavailableError otherwise. */
  verify(token: string): Promise<Principal>;
}

const IkNumber = z.string().regex(/^[0-9]{9}$/);
const Claims = z.discriminatedUnion('role', [
  z.object({ sub: z.string().min(1), role: z.literal('referrer'), ik: z.array(IkNumber).min(1), fhirBase: z.string().min(1) }),
  z.object({ sub: z.string().min(1), role: z.literal('clinic'), ik: z.array(IkNumber).length(1) }),
]);

/**
 * The auth service's JWKS, fetched on first use and cached by jose; a token with an unknown `kid`
 * (after a key rotation) triggers a refetch, at most every 30 s.
 */
export function remoteSigningKeys(jwksUrl: URL): JWTVerifyGetKey {
  return createRemoteJWKSet(jwksUrl, { timeoutDuration: 5_000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
}

/** Verified tokens kept: one per active party session is plenty; the oldest goes first. */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

/**
 * Verifies access tokens locally with the auth service's public keys: signature, algorithm, `typ`,
 * issuer, audience, expiry (clock injectable for tests) and the party claims. Needs neither Redis
 * nor a call to auth per request.
 *
 * A verified token is remembered until it expires: an Ed25519 signature check costs about 0.3 ms of
 * CPU, and a client sends the same token with every request for an hour (spec: `expiresIn` 3600).
 * Access tokens cannot be revoked before they expire (the refresh token can), so a cached verdict
 * is the verdict a fresh check would give until `exp`; a token presented after `exp` is checked
 * again and refused as expired. The key is the whole token: only its holder can hit the cache. A
 * signing key withdrawn from auth's key set stops counting for cached tokens when they expire.
 */
export function createAccessTokenVerifier(options: {
  keys: JWTVerifyGetKey;
  issuer: string;
  audience: string;
  now?: () => number;
  cacheSize?: number;
}): AccessTokenVerifier {
  const now = options.now ?? Date.now;
  const cacheSize = options.cacheSize ?? VERIFIED_TOKEN_CACHE_SIZE;
  const verified = new Map<string, { principal: Principal; expiresAtMs: number }>();

  const check = async (token: string): Promise<{ principal: Principal; expiresAtMs: number }> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, options.keys, {
        issuer: options.issuer,
        audience: options.audience,
        algorithms: ACCESS_TOKEN_ALGORITHMS,
        typ: ACCESS_TOKEN_TYPE,
        currentDate: new Date(now()),
        requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      }));
    } catch (error) {
      if (keysUnavailable(error)) throw new SigningKeysUnavailableError('the signing keys of the auth service cannot be fetched', { cause: error });
      throw new InvalidAccessTokenError(error instanceof errors.JWTExpired ? 'the access token has expired' : 'the access token is invalid', { cause: error });
    }
    const claims = Claims.safeParse(payload);
    if (!claims.success) throw new InvalidAccessTokenError('the access token does not name a party');
    const { sub, role, ik } = claims.data;
    const principal: Principal =
      claims.data.role === 'referrer' ? { partyId: sub, role, ikNumbers: ik, fhirBase: claims.data.fhirBase } : { partyId: sub, role, ikNumbers: ik };
    return { principal, expiresAtMs: (payload.exp ?? 0) * 1000 };
  };

  return {
    async verify(token) {
      const cached = verified.get(token);
      if (cached && cached.expiresAtMs > now()) return cached.principal;
      verified.delete(token);
      const result = await check(token);
      const oldest = verified.size >= cacheSize ? verified.keys().next().value : undefined;
      if (oldest !== undefined) verified.delete(oldest);
      verified.set(token, result);
      return result.principal;
    },
  };
}

/**
 * A failed JWKS fetch: a timeout, a network error (not a JOSEError at all), or jose's generic error
 * for a non-200 or non-JSON answer. Everything else is about the token itself.
 */
function keysUnavailable(error: unknown): boolean {
  if (error instanceof errors.JWKSTimeout) return true;
  if (!(error instanceof errors.JOSEError)) return true;
  return error.code === 'ERR_JOSE_GENERIC';
}
