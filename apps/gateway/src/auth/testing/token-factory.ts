import { randomUUID } from 'node:crypto';
import { SignJWT, createLocalJWKSet, exportJWK, generateKeyPair, type CryptoKey, type JWK, type JWTVerifyGetKey } from 'jose';

export const ISSUER = 'urn:bedrequest:auth';
export const AUDIENCE = 'urn:bedrequest:api';
export const HOUR = 3600;

export interface TestSigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicJwk: JWK;
}

/** An Ed25519 key pair like the auth service's, with its JWKS entry. */
export async function newSigningKey(kid: string = randomUUID()): Promise<TestSigningKey> {
  const { privateKey, publicKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: 'EdDSA', use: 'sig' } };
}

export function localKeys(...keys: TestSigningKey[]): JWTVerifyGetKey {
  return createLocalJWKSet({ keys: keys.map((key) => key.publicJwk) });
}

export const referrerClaims = { role: 'referrer', ik: ['260000001', '260000002'], fhirBase: 'https://demo-hospital.example/fhir' };
export const clinicClaims = { role: 'clinic', ik: ['510000001'] };

/** An access token as the auth service issues it; every part can be overridden to break it. */
export async function accessToken(
  key: TestSigningKey,
  options: { claims?: Record<string, unknown>; issuedAt?: number; issuer?: string; audience?: string; typ?: string; sub?: string } = {},
): Promise<string> {
  const issuedAt = options.issuedAt ?? Math.floor(Date.now() / 1000);
  return new SignJWT(options.claims ?? referrerClaims)
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: options.typ ?? 'at+jwt' })
    .setSubject(options.sub ?? randomUUID())
    .setJti(randomUUID())
    .setIssuer(options.issuer ?? ISSUER)
    .setAudience(options.audience ?? AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + HOUR)
    .sign(key.privateKey);
}
