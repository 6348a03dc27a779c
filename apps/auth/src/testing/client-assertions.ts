import { createHmac, generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';

/**
 * A system client's key pair and the assertions it signs, with node:crypto alone (not jose, which
 * the endpoint verifies with): a test then fails when the endpoint and the standard disagree.
 */
export interface TestClientKey {
  readonly alg: 'RS384' | 'ES384';
  readonly kid: string;
  readonly privateKey: KeyObject;
  readonly publicKey: KeyObject;
  /** The public JWK as a client registers it. */
  readonly jwk: Record<string, unknown>;
}

export function rsaKey(kid = `rsa-${randomUUID()}`, modulusLength = 2048): TestClientKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength });
  return { alg: 'RS384', kid, privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS384', use: 'sig' } };
}

export function ecKey(kid = `ec-${randomUUID()}`, namedCurve = 'P-384'): TestClientKey {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve });
  return { alg: 'ES384', kid, privateKey, publicKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid } };
}

export const jwksOf = (...keys: TestClientKey[]) => ({ keys: keys.map((key) => key.jwk) });

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** The claims of a good assertion of `clientId` for `audience`, expiring in four minutes; `claims` overrides them. */
export function assertionClaims(clientId: string, audience: string, claims: Record<string, unknown> = {}, nowMs = Date.now()) {
  const now = Math.floor(nowMs / 1000);
  return { iss: clientId, sub: clientId, aud: audience, exp: now + 240, jti: randomUUID(), ...claims };
}

/** A JWS compact serialization signed with `key` (RS384: PKCS#1 v1.5 over SHA-384; ES384: r||s). */
export function signAssertion(key: TestClientKey, claims: Record<string, unknown>, header: Record<string, unknown> = {}): string {
  const input = `${base64url({ alg: key.alg, kid: key.kid, typ: 'JWT', ...header })}.${base64url(claims)}`;
  const signature =
    key.alg === 'ES384'
      ? sign('sha384', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
      : sign('sha384', Buffer.from(input), key.privateKey);
  return `${input}.${signature.toString('base64url')}`;
}

/** An unsecured JWT (`alg: none`, RFC 7519 6): no signature at all. */
export function unsecuredAssertion(kid: string, claims: Record<string, unknown>): string {
  return `${base64url({ alg: 'none', kid, typ: 'JWT' })}.${base64url(claims)}.`;
}

/** HS256 with the client's public key (PEM) as the secret: the algorithm confusion attack. */
export function hs256WithPublicKey(key: TestClientKey, claims: Record<string, unknown>): string {
  const input = `${base64url({ alg: 'HS256', kid: key.kid, typ: 'JWT' })}.${base64url(claims)}`;
  const secret = key.publicKey.export({ format: 'pem', type: 'spki' });
  return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
}

/** The form of a client credentials request with `assertion`; `extra` adds or overrides parameters. */
export function tokenForm(assertion: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    grant_type: 'client_credentials',
    client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
    client_assertion: assertion,
    ...extra,
  };
}

export interface FormResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

/** POSTs `form` (an object, or a body string as given) form-encoded to `${url}/api/v1/token/oauth2`. */
export async function postTokenForm(
  url: string,
  form: Record<string, string> | string,
  contentType = 'application/x-www-form-urlencoded',
): Promise<FormResponse> {
  const response = await fetch(`${url}/api/v1/token/oauth2`, {
    method: 'POST',
    headers: { 'content-type': contentType },
    body: typeof form === 'string' ? form : new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
