export { ANY_ROLE, type Principal, type Role } from './principal';
export {
  createAccessTokenVerifier,
  remoteSigningKeys,
  InvalidAccessTokenError,
  SigningKeysUnavailableError,
  type AccessTokenVerifier,
} from './access-token-verifier';
export { requireAccessToken, principalOf } from './require-access-token';
