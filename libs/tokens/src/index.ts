export {
  ACCESS_TOKEN_LIFETIME_SECONDS,
  ACCESS_TOKEN_TYPE,
  ANY_ROLE,
  ActorClaim,
  PartyClaims,
  SERVICE_ROLE,
  SERVICE_TOKEN_LIFETIME_SECONDS,
  ServiceClaims,
  ServiceName,
  TOKEN_ALGORITHM,
  accessClaimsOf,
  principalOfClaims,
  type Principal,
  type Role,
} from './claims';
export {
  SCOPE_CATALOGUE,
  grantedPermissions,
  permissionsOf,
  permissionsOfRole,
  scopeRefusal,
  scopesOfRole,
  type CatalogueScope,
  type Permission,
} from './scopes';
export {
  CLIENT_ASSERTION_ALGORITHMS,
  CLIENT_ASSERTION_TYPE,
  CLIENT_AUTH_METHOD,
  CLIENT_GRANT_TYPE,
  CLIENT_TOKEN_PATH,
  clientTokenEndpoint,
} from './client-credentials';
export { fhirBasesOverlap, isUnderFhirBase } from './fhir-base';
export {
  InvalidAccessTokenError,
  SigningKeysUnavailableError,
  VERIFIED_TOKEN_CACHE_SIZE,
  createTokenVerifier,
  remoteSigningKeys,
  type Caller,
  type TokenVerifier,
  type TokenVerifierOptions,
} from './verifier';
export { accessTokenOf, bearerTokenOf, principalOf, requireScope, requireToken, type RequireTokenOptions } from './require-token';
export { ServiceTokenSource } from './service-token-source';
export { revocationListFor, serviceTokensFor, tokenVerifierFor, type TokenConfig } from './from-config';
export { RevocationList, loadRevocationsFrom, type RevocationListOptions, type Revocations } from './revocation-list';
