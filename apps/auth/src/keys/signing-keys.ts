import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, importPKCS8, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';
import { TOKEN_ALGORITHM } from '@bedrequest/tokens';

/** A signing key or public key from the configuration that cannot be used; names the variable only. */
export class SigningKeyConfigError extends Error {
  override name = 'SigningKeyConfigError';
}

export interface SigningKeys {
  /** The key new access tokens are signed with. */
  readonly current: { readonly kid: string; readonly privateKey: CryptoKey };
  /** What GET /internal/jwks serves: the current public key and those that still verify. */
  readonly jwks: JSONWebKeySet;
}

/** Where the development key pair is kept, so that restarts and replicas share it. */
export interface DevelopmentKeyStore {
  /** The oldest stored private JWK, with its kid; undefined when none was stored yet. */
  oldest(): Promise<{ kid: string; privateJwk: JWK } | undefined>;
  /**
   * Stores a key unless one is stored already, in turn with other starts; the key to use: the one
   * stored first, also when a start storing its own was a moment earlier.
   */
  addUnlessStored(kid: string, privateJwk: JWK): Promise<{ kid: string; privateJwk: JWK }>;
}

export interface SigningKeyOptions {
  /** AUTH_SIGNING_KEY: a private Ed25519 JWK (JSON) or PKCS#8 PEM. */
  readonly signingKey?: string;
  /** AUTH_SIGNING_KEY_ID. */
  readonly signingKeyId?: string;
  /** AUTH_PREVIOUS_PUBLIC_KEYS: a JWKS or a JSON array of public JWKs. */
  readonly previousPublicKeys?: string;
  readonly nodeEnv: 'development' | 'test' | 'production';
  readonly developmentKeys: DevelopmentKeyStore;
}

/**
 * The configured signing key, or outside production a development key generated on the first start
 * and kept in the auth schema. Previous public keys stay in the JWKS so that tokens signed before a
 * rotation verify until they expire (at most one hour later).
 */
export async function loadSigningKeys(options: SigningKeyOptions): Promise<SigningKeys> {
  const current = options.signingKey ? await importPrivateKey(options.signingKey, options.signingKeyId) : await developmentKey(options);
  const previous = options.previousPublicKeys ? await importPublicKeys(options.previousPublicKeys) : [];
  const keys = [current.publicJwk, ...previous.filter((jwk) => jwk.kid !== current.kid)];
  return { current: { kid: current.kid, privateKey: current.privateKey }, jwks: { keys } };
}

async function developmentKey(options: SigningKeyOptions) {
  if (options.nodeEnv === 'production') {
    throw new SigningKeyConfigError('AUTH_SIGNING_KEY is required in production (an Ed25519 private JWK or PKCS#8 PEM)');
  }
  let stored = await options.developmentKeys.oldest();
  if (!stored) {
    const { privateKey } = await generateKeyPair(TOKEN_ALGORITHM, { crv: 'Ed25519', extractable: true });
    const privateJwk = await exportJWK(privateKey);
    stored = await options.developmentKeys.addUnlessStored(await thumbprint(privateJwk), privateJwk);
  }
  return fromPrivateJwk(stored.privateJwk, stored.kid, 'the stored development signing key');
}

async function importPrivateKey(text: string, kidOverride: string | undefined) {
  const source = 'AUTH_SIGNING_KEY';
  if (text.trim().startsWith('-----BEGIN')) {
    let privateKey: CryptoKey;
    try {
      privateKey = await importPKCS8(text.trim(), TOKEN_ALGORITHM, { extractable: true });
    } catch {
      throw new SigningKeyConfigError(`${source} is not an Ed25519 private key in PKCS#8 PEM form`);
    }
    return fromPrivateJwk(await exportJWK(privateKey), kidOverride, source);
  }
  const jwk = parseJson(text, source) as JWK;
  return fromPrivateJwk(jwk, kidOverride ?? jwk.kid, source);
}

async function fromPrivateJwk(jwk: JWK, kid: string | undefined, source: string) {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || !jwk.d || !jwk.x) {
    throw new SigningKeyConfigError(`${source} must be an Ed25519 private key (JWK with kty "OKP", crv "Ed25519", d and x)`);
  }
  let privateKey: CryptoKey;
  try {
    privateKey = (await importJWK(jwk, TOKEN_ALGORITHM)) as CryptoKey;
  } catch {
    throw new SigningKeyConfigError(`${source} cannot be imported as an Ed25519 private key`);
  }
  const publicPart: JWK = { kty: 'OKP', crv: 'Ed25519', x: jwk.x };
  const keyId = kid ?? (await thumbprint(publicPart));
  return { kid: keyId, privateKey, publicJwk: publicJwk(publicPart, keyId) };
}

async function importPublicKeys(text: string): Promise<JWK[]> {
  const source = 'AUTH_PREVIOUS_PUBLIC_KEYS';
  const parsed = parseJson(text, source) as { keys?: unknown } | unknown[];
  const entries = Array.isArray(parsed) ? parsed : parsed.keys;
  if (!Array.isArray(entries)) throw new SigningKeyConfigError(`${source} must be a JWKS ({"keys": [...]}) or a JSON array of JWKs`);
  return Promise.all(
    entries.map(async (entry: JWK, index) => {
      if (entry?.kty !== 'OKP' || entry.crv !== 'Ed25519' || !entry.x) {
        throw new SigningKeyConfigError(`${source}[${index}] must be an Ed25519 public JWK (kty "OKP", crv "Ed25519", x)`);
      }
      if (entry.d) throw new SigningKeyConfigError(`${source}[${index}] holds a private key; give its public part only`);
      const publicPart: JWK = { kty: 'OKP', crv: 'Ed25519', x: entry.x };
      try {
        await importJWK(publicPart, TOKEN_ALGORITHM);
      } catch {
        throw new SigningKeyConfigError(`${source}[${index}] cannot be imported as an Ed25519 public key`);
      }
      return publicJwk(publicPart, entry.kid ?? (await thumbprint(publicPart)));
    }),
  );
}

function publicJwk(publicPart: JWK, kid: string): JWK {
  return { ...publicPart, kid, alg: TOKEN_ALGORITHM, use: 'sig' };
}

/** RFC 7638 thumbprint of the public part: a stable kid for a key that has none. */
function thumbprint(jwk: JWK): Promise<string> {
  return calculateJwkThumbprint({ kty: jwk.kty, crv: jwk.crv, x: jwk.x } as JWK, 'sha256');
}

function parseJson(text: string, source: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // The value itself is never repeated: it may be a private key.
    throw new SigningKeyConfigError(`${source} is neither valid JSON nor a PEM key`);
  }
}
