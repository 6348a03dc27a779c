import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';

/** The key pair of the sandbox referrer's SMART Backend Services client, as files an integrator's software reads. */
export interface ClientKeyFiles {
  /** The private key, PKCS#8 PEM, readable by its owner only. */
  readonly privateKeyFile: string;
  /** The public key as a JWKS (what `client create --jwks-file` registers). */
  readonly jwksFile: string;
  /** The key's id: its RFC 7638 thumbprint, the `kid` of the assertions' header. */
  readonly kid: string;
}

/** RS384 (docs/parties.md, "System clients and scopes"): RSA of 2048 bits, the least auth takes. */
const ALGORITHM = 'RS384';

/**
 * The client's key pair in `directory`: the one kept there since an earlier run, or a new one. The
 * JWKS is written from the private key each time, so that the two always belong together.
 */
export async function clientKeyIn(directory: string, name = 'referrer-client'): Promise<ClientKeyFiles> {
  mkdirSync(directory, { recursive: true });
  const privateKeyFile = join(directory, `${name}.key.pem`);
  const jwksFile = join(directory, `${name}.jwks.json`);
  if (!existsSync(privateKeyFile)) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(privateKeyFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  const publicJwk = createPublicKey(createPrivateKey(readFileSync(privateKeyFile))).export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(publicJwk, 'sha256');
  writeFileSync(jwksFile, `${JSON.stringify({ keys: [{ ...publicJwk, kid, alg: ALGORITHM, use: 'sig' }] }, null, 2)}\n`);
  return { privateKeyFile, jwksFile, kid };
}
