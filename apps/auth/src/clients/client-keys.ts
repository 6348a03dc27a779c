import { createLocalJWKSet, createRemoteJWKSet, customFetch, errors, type JWTVerifyGetKey, type RemoteJWKSet } from 'jose';
import type { SystemClient } from './client';
import type { GuardedJwksFetch } from './jwks-url';

/** How long fetched keys are used, and how soon an unknown kid may fetch them again (a rotation). */
export interface JwksCacheTimes {
  /** Keys fetched are used this long at most before they are fetched again. */
  readonly cacheMaxAgeMs: number;
  /** After a fetch, an assertion naming an unknown kid fetches again only after this long, so that unknown kids cannot make us fetch on every request. */
  readonly cooldownMs: number;
}

export const DEFAULT_JWKS_CACHE_TIMES: JwksCacheTimes = { cacheMaxAgeMs: 5 * 60_000, cooldownMs: 30_000 };

/** The client's keys at its jwks_url could not be had: no answer, not 200, not an acceptable JWKS, or a refused address. */
export class ClientKeysUnavailableError extends Error {
  override name = 'ClientKeysUnavailableError';
}

/**
 * The keys a client's assertions are verified with, chosen by the assertion's `kid`: its stored JWKS,
 * or the JWKS at its jwks_url, fetched through the guarded fetch and cached per client (jose's
 * remote JWKS set; an unknown kid fetches again after the cooldown, so a client rotating its keys
 * is followed). Any failure to get the keys, other than no key matching, is a
 * ClientKeysUnavailableError.
 */
export class ClientKeys {
  private readonly remote = new Map<string, { url: string; keys: RemoteJWKSet }>();

  constructor(
    private readonly fetcher: GuardedJwksFetch,
    private readonly times: JwksCacheTimes = DEFAULT_JWKS_CACHE_TIMES,
  ) {}

  of(client: SystemClient): JWTVerifyGetKey {
    if ('jwks' in client.keys) return createLocalJWKSet(client.keys.jwks);
    const remote = this.remoteKeys(client.id, client.keys.jwksUrl);
    return async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
        throw new ClientKeysUnavailableError(error instanceof Error ? error.message : String(error), { cause: error });
      }
    };
  }

  private remoteKeys(clientId: string, url: string): RemoteJWKSet {
    const cached = this.remote.get(clientId);
    if (cached?.url === url) return cached.keys;
    const keys = createRemoteJWKSet(new URL(url), {
      cacheMaxAge: this.times.cacheMaxAgeMs,
      cooldownDuration: this.times.cooldownMs,
      timeoutDuration: 5000,
      [customFetch]: this.fetcher.fetch,
    });
    this.remote.set(clientId, { url, keys });
    return keys;
  }
}
