import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import { createTokenVerifier, type TokenVerifier } from '@bedrequest/tokens';

/**
 * Checks tokens auth itself issued with its own published keys (the current one and those still
 * accepted after a rotation), as every other service checks them with `/internal/jwks`, without a
 * fetch of its own JWKS. Service tokens pass only where `serviceAudience` is given.
 */
export function ownKeysVerifier(
  jwks: JSONWebKeySet,
  options: { issuer: string; audience: string; serviceAudience?: string; now: () => number },
): TokenVerifier {
  return createTokenVerifier({ keys: createLocalJWKSet(jwks), ...options });
}
