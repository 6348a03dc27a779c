// A system client's side of SMART Backend Services for the tests (docs/parties.md, "System clients and
// scopes"): key pairs, their public JWKs, and client assertions (RFC 7523) signed with node:crypto,
// not with jose, which auth verifies them with, so that both are not wrong the same way.
import { createHmac, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';

export type ClientAlgorithm = 'RS384' | 'ES384';

export interface TestClientKey {
  alg: ClientAlgorithm;
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key as a JWK with its `kid`, `alg` and `use`, as the client's JWKS lists it. */
  jwk: Record<string, unknown>;
}

export function testClientKey(alg: ClientAlgorithm): TestClientKey {
  const kid = `${alg.toLowerCase()}-${randomUUID().slice(0, 8)}`;
  const { privateKey, publicKey } = alg === 'RS384' ? generateKeyPairSync('rsa', { modulusLength: 2048 }) : generateKeyPairSync('ec', { namedCurve: 'P-384' });
  return { alg, kid, privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' } };
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export interface AssertionOptions {
  /** Claims over the valid ones (`undefined` leaves one out). */
  claims?: Record<string, unknown>;
  header?: Record<string, unknown>;
  /** Broken on purpose: no signature at all, or HMAC-SHA256 keyed with the public key's PEM. */
  signWith?: 'none' | 'hs256-public-key';
}

/** A valid assertion of `clientId` for `audience` (the token endpoint as discovery names it), unless `options` break it. */
export function clientAssertion(clientId: string, audience: string, key: TestClientKey, options: AssertionOptions = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const header = { alg: key.alg, kid: key.kid, typ: 'JWT', ...options.header };
  const claims = { iss: clientId, sub: clientId, aud: audience, iat: now, exp: now + 240, jti: randomUUID(), ...options.claims };
  const input = `${base64url(header)}.${base64url(claims)}`;
  if (options.signWith === 'none') return `${input}.`;
  if (options.signWith === 'hs256-public-key') {
    const secret = key.publicKey.export({ type: 'spki', format: 'pem' });
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  }
  // ES384's JWS signature is r‖s (RFC 7518 3.4), not the DER node:crypto writes by default.
  const signature =
    key.alg === 'RS384'
      ? sign('sha384', Buffer.from(input), key.privateKey)
      : sign('sha384', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

/** The token request's form (RFC 6749 4.4 with RFC 7523's client authentication). */
export function clientTokenForm(assertion: string, scope?: string): string {
  return new URLSearchParams({
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
    ...(scope === undefined ? {} : { scope }),
  }).toString();
}
