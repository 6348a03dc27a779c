import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import type { JSONWebKeySet, JWK } from 'jose';
import { permissionsOf, scopesOfRole, type Permission } from '@bedrequest/tokens';
import type { Role } from '../parties/party';

/**
 * A system client of a party (docs/parties.md, "System clients and scopes"): software that gets
 * access tokens by OAuth 2.0 client credentials, authenticating with a JWT signed by one of its keys
 * (SMART Backend Services; RFC 7523). Its public keys are kept as a JWKS or fetched from its URL.
 */
export interface SystemClient {
  readonly id: string;
  readonly partyId: string;
  readonly name: string;
  readonly keys: { readonly jwks: JSONWebKeySet } | { readonly jwksUrl: string };
  /** The scopes it may be granted; null: every catalogue scope of its party's role. */
  readonly scopes: readonly string[] | null;
  readonly createdAt: Date;
  readonly disabledAt: Date | null;
}

/** Most keys one client's JWKS may hold: room for a rotation or two, not a key store. */
export const MAX_CLIENT_KEYS = 10;

/** JWK members that only a private (or symmetric) key has (RFC 7518 6.2.2, 6.3.2, 6.4.1). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'] as const;

/** The least RSA modulus a client key may have (SMART Backend Services, RFC 7518 3.3). */
const MIN_RSA_BITS = 2048;

/**
 * Why `value` is not a JWKS a client may authenticate with, or undefined when it is: public RSA
 * keys of at least 2048 bits or EC P-384 keys, each with a `kid` of its own (the assertion's header
 * names the key), for signing with RS384 or ES384.
 */
export function jwksRefusal(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || !Array.isArray((value as { keys?: unknown }).keys)) {
    return 'not a JWKS (a JSON object with a "keys" array)';
  }
  const keys = (value as { keys: unknown[] }).keys;
  if (keys.length === 0) return 'the JWKS holds no key';
  if (keys.length > MAX_CLIENT_KEYS) return `the JWKS holds ${keys.length} keys (at most ${MAX_CLIENT_KEYS})`;
  const kids = new Set<string>();
  for (const [index, key] of keys.entries()) {
    const refusal = keyRefusal(key);
    if (refusal) return `key ${index + 1}: ${refusal}`;
    const kid = (key as JWK).kid as string;
    if (kids.has(kid)) return `key ${index + 1}: kid "${kid}" is used by another key of the JWKS`;
    kids.add(kid);
  }
  return undefined;
}

function keyRefusal(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return 'not a JWK';
  const key = value as JWK;
  const secret = PRIVATE_MEMBERS.find((member) => member in key);
  if (secret) return `holds the private member "${secret}": register public keys only`;
  if (typeof key.kid !== 'string' || key.kid.length === 0 || key.kid.length > 200) return 'has no kid (1 to 200 characters)';
  if (key.use !== undefined && key.use !== 'sig') return `"use" is "${String(key.use)}", not "sig"`;
  if (key.kty === 'RSA') return rsaRefusal(key);
  if (key.kty === 'EC') {
    if (key.crv !== 'P-384') return `EC keys must be on P-384 (ES384), not ${String(key.crv)}`;
    if (key.alg !== undefined && key.alg !== 'ES384') return `an EC P-384 key's alg must be ES384, not ${String(key.alg)}`;
    return publicKeyOf(key) ? undefined : 'is not a valid public key';
  }
  return `kty "${String(key.kty)}" is not accepted (RSA or EC P-384)`;
}

function rsaRefusal(key: JWK): string | undefined {
  if (key.alg !== undefined && key.alg !== 'RS384') return `an RSA key's alg must be RS384, not ${String(key.alg)}`;
  const publicKey = publicKeyOf(key);
  if (!publicKey) return 'is not a valid public key';
  const bits = publicKey.asymmetricKeyDetails?.modulusLength ?? 0;
  return bits < MIN_RSA_BITS ? `the RSA key has ${bits} bits (at least ${MIN_RSA_BITS})` : undefined;
}

function publicKeyOf(key: JWK): KeyObject | undefined {
  try {
    return createPublicKey({ key: key as JsonWebKey, format: 'jwk' });
  } catch {
    return undefined;
  }
}

/** The scopes `client` may be granted: those it was registered with, else every catalogue scope of its role. */
export function allowedScopesOf(client: Pick<SystemClient, 'scopes'>, role: Role): readonly string[] {
  return client.scopes ?? scopesOfRole(role);
}

/** The permissions of `scopes`, as scopeRefusal checks a requested scope against them. */
export function permissionsOfScopes(scopes: readonly string[]): ReadonlySet<Permission> {
  return new Set(scopes.flatMap((scope) => permissionsOf(scope) ?? []));
}
