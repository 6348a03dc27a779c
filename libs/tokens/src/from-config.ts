import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { jwksUrlOf } from '@bedrequest/config';
import type { TokenSource } from '@bedrequest/http';
import { RevocationList, loadRevocationsFrom, type Revocations } from './revocation-list';
import { ServiceTokenSource } from './service-token-source';
import { createTokenVerifier, remoteSigningKeys, type TokenVerifier } from './verifier';

/** The token variables of a service's configuration (`tokenEnv` of @bedrequest/config). */
export interface TokenConfig {
  AUTH_URL: string;
  AUTH_JWKS_URL?: string | undefined;
  AUTH_ISSUER: string;
  AUTH_AUDIENCE: string;
  SERVICE_TOKEN_AUDIENCE: string;
  AUTH_REVOCATION_POLL_MS: number;
}

/**
 * The verifier of a service, with the auth service's published keys: parties' tokens always;
 * service tokens where `services` (the internal APIs), never on the public API. With `revocations`
 * (the gateway's), the tokens of disabled people and parties are refused too.
 */
export function tokenVerifierFor(config: TokenConfig, options: { services: boolean; revocations?: Revocations }): TokenVerifier {
  return createTokenVerifier({
    keys: remoteSigningKeys(jwksUrlOf(config)),
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    ...(options.services ? { serviceAudience: config.SERVICE_TOKEN_AUDIENCE } : {}),
    ...(options.revocations ? { revocations: options.revocations } : {}),
  });
}

/**
 * The list of revoked access tokens, read from the auth service with `tokens` every
 * AUTH_REVOCATION_POLL_MS (docs/parties.md, "Disabling"); the caller starts and stops it.
 */
export function revocationListFor(config: TokenConfig, tokens: TokenSource, options: { logger: Logger; registry?: Registry }): RevocationList {
  return new RevocationList({ ...loadRevocationsFrom(config.AUTH_URL, tokens), pollIntervalMs: config.AUTH_REVOCATION_POLL_MS, ...options });
}

/** The service tokens of the service named `service`, fetched from the auth service. */
export function serviceTokensFor(config: TokenConfig & { SERVICE_CLIENT_SECRET: string }, service: string): ServiceTokenSource {
  return new ServiceTokenSource({ authUrl: config.AUTH_URL, service, clientSecret: config.SERVICE_CLIENT_SECRET });
}
