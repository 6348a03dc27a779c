export {
  AUDIENCE,
  HOUR,
  ISSUER,
  SERVICE_AUDIENCE,
  TestAuthority,
  accessToken,
  clinicClaims,
  localKeys,
  newSigningKey,
  referrerClaims,
  serviceToken,
  type TestSigningKey,
} from './test-authority';
