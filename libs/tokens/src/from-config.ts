import { jwksUrlOf } from '@bedrequest/config';
import { ServiceTokenSource } from './service-token-source';
import { createTokenVerifier, remoteSigningKeys, type TokenVerifier } from './verifier';

/** The token variables of a service's configuration (`tokenEnv` of @bedrequest/config). */
export interface TokenConfig {
  AUTH_URL: string;
  AUTH_JWKS_URL?: string | undefined;
  AUTH_ISSUER: string;
  AUTH_AUDIENCE: string;
  SERVICE_TOKEN_AUDIENCE: string;
}

/**
 * The verifier of a service, with the auth service's published keys: parties' tokens always;
 * service tokens where `services` (the internal APIs), never on the public API.
 */
export function tokenVerifierFor(config: TokenConfig, options: { services: boolean }): TokenVerifier {
  return createTokenVerifier({
    keys: remoteSigningKeys(jwksUrlOf(config)),
    issuer: config.AUTH_ISSUER,
    audience: config.AUTH_AUDIENCE,
    ...(options.services ? { serviceAudience: config.SERVICE_TOKEN_AUDIENCE } : {}),
  });
}

/** The service tokens of the service named `service`, fetched from the auth service. */
export function serviceTokensFor(config: TokenConfig & { SERVICE_CLIENT_SECRET: string }, service: string): ServiceTokenSource {
  return new ServiceTokenSource({ authUrl: config.AUTH_URL, service, clientSecret: config.SERVICE_CLIENT_SECRET });
}
