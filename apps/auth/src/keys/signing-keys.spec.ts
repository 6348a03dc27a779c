import { exportJWK, exportPKCS8, generateKeyPair, type JWK } from 'jose';
import { SigningKeyConfigError, loadSigningKeys, type DevelopmentKeyStore } from './signing-keys';

/** Configured keys never touch the development key store. */
const noStore: DevelopmentKeyStore = {
  oldest: () => Promise.reject(new Error('the development key store must not be used')),
  addUnlessStored: () => Promise.reject(new Error('the development key store must not be used')),
};

const newKeyPair = () => generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });

describe('loadSigningKeys from the configuration', () => {
  it('takes a private JWK, keeps its kid, and publishes only its public part', async () => {
    const { privateKey } = await newKeyPair();
    const jwk = { ...(await exportJWK(privateKey)), kid: 'key-2025' };

    const keys = await loadSigningKeys({ signingKey: JSON.stringify(jwk), nodeEnv: 'production', developmentKeys: noStore });

    expect(keys.current.kid).toBe('key-2025');
    expect(keys.jwks.keys).toEqual([{ kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: 'key-2025', alg: 'EdDSA', use: 'sig' }]);
  });

  it('takes a PKCS#8 PEM and names it by its JWK thumbprint, or by AUTH_SIGNING_KEY_ID', async () => {
    const { privateKey } = await newKeyPair();
    const pem = await exportPKCS8(privateKey);

    const byThumbprint = await loadSigningKeys({ signingKey: pem, nodeEnv: 'production', developmentKeys: noStore });
    const named = await loadSigningKeys({ signingKey: pem, signingKeyId: 'pem-key', nodeEnv: 'production', developmentKeys: noStore });

    expect(byThumbprint.current.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(named.current.kid).toBe('pem-key');
    expect(named.jwks.keys[0]!.x).toBe(byThumbprint.jwks.keys[0]!.x);
  });

  it('serves previous public keys beside the current one, each with its own kid', async () => {
    const current = { ...(await exportJWK((await newKeyPair()).privateKey)), kid: 'new' };
    const previous = { ...(await exportJWK((await newKeyPair()).publicKey)), kid: 'old' };

    const keys = await loadSigningKeys({
      signingKey: JSON.stringify(current),
      previousPublicKeys: JSON.stringify({ keys: [previous] }),
      nodeEnv: 'production',
      developmentKeys: noStore,
    });

    expect(keys.jwks.keys.map((key) => key.kid)).toEqual(['new', 'old']);
    expect(keys.current.kid).toBe('new');
  });

  it('refuses to generate a development key in production', async () => {
    await expect(loadSigningKeys({ nodeEnv: 'production', developmentKeys: noStore })).rejects.toThrow(
      new SigningKeyConfigError('AUTH_SIGNING_KEY is required in production (an Ed25519 private JWK or PKCS#8 PEM)'),
    );
  });

  it.each([
    ['text that is neither JSON nor PEM', 'secret-value', 'AUTH_SIGNING_KEY is neither valid JSON nor a PEM key'],
    ['a public key only', 'PUBLIC', 'AUTH_SIGNING_KEY must be an Ed25519 private key'],
    ['an HMAC secret', JSON.stringify({ kty: 'oct', k: 'c2VjcmV0' }), 'AUTH_SIGNING_KEY must be an Ed25519 private key'],
    ['a broken PEM', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----', 'not an Ed25519 private key in PKCS#8 PEM form'],
  ])('refuses %s as signing key without repeating it', async (_case, value, message) => {
    const signingKey = value === 'PUBLIC' ? JSON.stringify(await exportJWK((await newKeyPair()).publicKey)) : value;

    const refusal = loadSigningKeys({ signingKey, nodeEnv: 'production', developmentKeys: noStore });

    await expect(refusal).rejects.toBeInstanceOf(SigningKeyConfigError);
    await expect(refusal).rejects.toThrow(message);
    await expect(refusal).rejects.not.toThrow(value === 'PUBLIC' ? '"x"' : value);
  });

  it('refuses a private key among the previous public keys', async () => {
    const current = await exportJWK((await newKeyPair()).privateKey);
    const leaked: JWK = await exportJWK((await newKeyPair()).privateKey);

    await expect(
      loadSigningKeys({ signingKey: JSON.stringify(current), previousPublicKeys: JSON.stringify([leaked]), nodeEnv: 'production', developmentKeys: noStore }),
    ).rejects.toThrow('AUTH_PREVIOUS_PUBLIC_KEYS[0] holds a private key');
  });
});
