import type { JWK } from 'jose';
import type { AuthDatabase } from '../persistence/database';
import { loadSigningKeys, type DevelopmentKeyStore, type SigningKeys } from './signing-keys';

/** The signing-key variables of the auth service's configuration (and of its admin CLI's). */
export interface SigningKeyConfig {
  NODE_ENV: 'development' | 'test' | 'production';
  AUTH_SIGNING_KEY?: string | undefined;
  AUTH_SIGNING_KEY_ID?: string | undefined;
  AUTH_PREVIOUS_PUBLIC_KEYS?: string | undefined;
}

/** The keys of `config`, with the development key kept in the auth schema of `prisma`. */
export function signingKeysOf(config: SigningKeyConfig, prisma: AuthDatabase): Promise<SigningKeys> {
  return loadSigningKeys({
    signingKey: config.AUTH_SIGNING_KEY,
    signingKeyId: config.AUTH_SIGNING_KEY_ID,
    previousPublicKeys: config.AUTH_PREVIOUS_PUBLIC_KEYS,
    nodeEnv: config.NODE_ENV,
    developmentKeys: new SigningKeyRepository(prisma),
  });
}

/** The development signing key in the auth schema (table signing_key). */
export class SigningKeyRepository implements DevelopmentKeyStore {
  constructor(private readonly prisma: AuthDatabase) {}

  async oldest(): Promise<{ kid: string; privateJwk: JWK } | undefined> {
    const row = await this.prisma.signingKey.findFirst({ orderBy: [{ createdAt: 'asc' }, { kid: 'asc' }] });
    return row ? { kid: row.kid, privateJwk: row.privateJwk as JWK } : undefined;
  }

  async add(kid: string, privateJwk: JWK): Promise<void> {
    await this.prisma.signingKey.createMany({ data: [{ kid, privateJwk: { ...privateJwk } }], skipDuplicates: true });
  }
}
