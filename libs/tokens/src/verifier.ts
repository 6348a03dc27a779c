import { createRemoteJWKSet, customFetch, errors, jwtVerify, type FetchImplementation, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { Agent, fetch as fetchThrough } from 'undici';
import { trustedCa } from '@bedrequest/config';
import { ACCESS_TOKEN_TYPE, PartyClaims, SERVICE_ROLE, ServiceClaims, TOKEN_ALGORITHM, principalOfClaims, type Principal } from './claims';
import type { Revocations } from './revocation-list';

/** Missing, malformed, tampered, expired, revoked or foreign token: 401. */
export class InvalidAccessTokenError extends Error {
  override name = 'InvalidAccessTokenError';
}

/** The auth service's public keys cannot be fetched, so no token can be checked: 503. */
export class SigningKeysUnavailableError extends Error {
  override name = 'SigningKeysUnavailableError';
}

/** Who a verified token speaks for: a party that logged in, or a service of the stack. */
export type Caller = { readonly kind: 'party'; readonly principal: Principal } | { readonly kind: 'service'; readonly service: string };

export interface TokenVerifier {
  /** The caller of a valid token; InvalidAccessTokenError or SigningKeysUnavailableError otherwise. */
  verify(token: string): Promise<Caller>;
  /**
   * Whether `token` was verified before and has neither expired nor been revoked since: verify()
   * answers it from memory, without verification work. Lets a limit of unverified tokens pass the
   * known ones untouched.
   */
  knows(token: string): boolean;
}

/**
 * The auth service's JWKS, fetched on first use and cached by jose; a token with an unknown `kid`
 * (after a key rotation) triggers a refetch, at most every 30 s. Over https with TLS_CA_FILE set,
 * auth is verified against that CA alone (docs/operations.md, "Encryption in transit"): keys
 * served by anyone else are never fetched, and every token is refused as unverifiable (503).
 */
export function remoteSigningKeys(jwksUrl: URL): JWTVerifyGetKey {
  const ca = jwksUrl.protocol === 'https:' ? trustedCa() : undefined;
  return createRemoteJWKSet(jwksUrl, {
    timeoutDuration: 5_000,
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
    ...(ca ? { [customFetch]: fetchTrusting(ca.pem) } : {}),
  });
}

/** jose's fetch through an undici agent that trusts `ca` only (the global fetch knows Node's public CAs only). */
function fetchTrusting(ca: string): FetchImplementation {
  const dispatcher = new Agent({ connect: { ca } });
  // undici's Response is the one the global fetch answers with, typed apart.
  return async (url, { headers, ...options }) =>
    (await fetchThrough(url, { ...options, headers: Object.fromEntries(headers), dispatcher })) as unknown as Response;
}

/** Verified tokens kept: one per active party session is plenty; the oldest goes first. */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000;

export interface TokenVerifierOptions {
  keys: JWTVerifyGetKey;
  issuer: string;
  /** The `aud` of parties' access tokens (the public API's). */
  audience: string;
  /**
   * The `aud` of service tokens; unset, service tokens are refused (the gateway's public routes).
   * A service token never carries the parties' audience, nor a party token this one.
   */
  serviceAudience?: string;
  /**
   * Whose access tokens were revoked (a RevocationList read from auth): a party's token of a
   * person or party revoked at or after its `iat` is refused. Unset, no token is refused as revoked.
   */
  revocations?: Revocations;
  now?: () => number;
  cacheSize?: number;
}

/**
 * Verifies access tokens locally with the auth service's public keys: signature, algorithm, `typ`,
 * issuer, audience, expiry (clock injectable for tests) and the claims of a party or a service.
 * Needs neither Redis nor a call to auth per request.
 *
 * A verified token is remembered until it expires: an Ed25519 signature check costs about 0.3 ms of
 * CPU, and a client sends the same token with every request for an hour. A cached verdict is the
 * verdict a fresh check would give until `exp` unless the token is revoked meanwhile: a remembered
 * token is checked against `revocations` on every use, and the tokens of a revocation are dropped
 * when it arrives (docs/parties.md, "Disabling"); a token presented after `exp` is checked again
 * and refused as expired. The key is the whole token: only its holder can hit the cache. A signing
 * key withdrawn from auth's key set stops counting for cached tokens when they expire.
 */
export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const now = options.now ?? Date.now;
  const cacheSize = options.cacheSize ?? VERIFIED_TOKEN_CACHE_SIZE;
  const verified = new Map<string, Verified>();
  const audiences = options.serviceAudience ? [options.audience, options.serviceAudience] : [options.audience];
  const revoked = ({ caller, issuedAtSeconds }: Verified) =>
    caller.kind === 'party' && options.revocations !== undefined && options.revocations.revokes(caller.principal, issuedAtSeconds);
  options.revocations?.onRevoked(() => {
    for (const [token, entry] of verified) if (revoked(entry)) verified.delete(token);
  });

  const check = async (token: string): Promise<Verified> => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, options.keys, {
        issuer: options.issuer,
        audience: audiences,
        algorithms: [TOKEN_ALGORITHM],
        typ: ACCESS_TOKEN_TYPE,
        currentDate: new Date(now()),
        requiredClaims: ['sub', 'jti', 'iat', 'exp'],
      }));
    } catch (error) {
      if (keysUnavailable(error)) throw new SigningKeysUnavailableError('the signing keys of the auth service cannot be fetched', { cause: error });
      throw new InvalidAccessTokenError(error instanceof errors.JWTExpired ? 'the access token has expired' : 'the access token is invalid', { cause: error });
    }
    const result = { caller: callerOf(payload, options), expiresAtMs: (payload.exp ?? 0) * 1000, issuedAtSeconds: payload.iat ?? 0 };
    if (revoked(result)) throw new InvalidAccessTokenError('the access token was revoked');
    return result;
  };

  return {
    knows(token) {
      const cached = verified.get(token);
      return cached !== undefined && cached.expiresAtMs > now() && !revoked(cached);
    },
    async verify(token) {
      const cached = verified.get(token);
      if (cached && cached.expiresAtMs > now()) {
        if (!revoked(cached)) return cached.caller;
        verified.delete(token);
        throw new InvalidAccessTokenError('the access token was revoked');
      }
      verified.delete(token);
      const result = await check(token);
      const oldest = verified.size >= cacheSize ? verified.keys().next().value : undefined;
      if (oldest !== undefined) verified.delete(oldest);
      verified.set(token, result);
      return result.caller;
    },
  };
}

/** A token verified and remembered: who it speaks for, until when, and since when (`iat`, for revocations). */
interface Verified {
  readonly caller: Caller;
  readonly expiresAtMs: number;
  readonly issuedAtSeconds: number;
}

/** A party token must be for the parties' audience, a service token for the services'. */
function callerOf(payload: JWTPayload, options: TokenVerifierOptions): Caller {
  const audiences = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
  if (payload['role'] === SERVICE_ROLE) {
    const service = ServiceClaims.safeParse(payload);
    if (!service.success || !options.serviceAudience || !audiences.includes(options.serviceAudience)) {
      throw new InvalidAccessTokenError('the access token is invalid');
    }
    return { kind: 'service', service: service.data.sub };
  }
  const party = PartyClaims.safeParse(payload);
  if (!party.success) throw new InvalidAccessTokenError('the access token does not name a party');
  if (!audiences.includes(options.audience)) throw new InvalidAccessTokenError('the access token is invalid');
  return { kind: 'party', principal: principalOfClaims(party.data) };
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
