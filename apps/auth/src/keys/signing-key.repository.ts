import type { JWK } from 'jose';
import { Prisma } from '../generated/prisma/client';
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

/**
 * The turn to store the development key: a transaction-level advisory lock, taken before reading
 * whether a key is stored, so that replicas starting at once store one key and all go on with it.
 * One lock for the whole database (raw SQL does not know the service's schema): it is taken only
 * while no key is stored, for a few milliseconds.
 */
export const DEVELOPMENT_KEY_LOCK = 'bedrequest-auth-development-key';
export const developmentKeyTurn = Prisma.sql`SELECT pg_advisory_xact_lock(hashtextextended(${DEVELOPMENT_KEY_LOCK}, 0))`;

/** The development signing key in the auth schema (table signing_key). */
export class SigningKeyRepository implements DevelopmentKeyStore {
  constructor(private readonly prisma: AuthDatabase) {}

  oldest(): Promise<StoredKey | undefined> {
    return oldestIn(this.prisma);
  }

  addUnlessStored(kid: string, privateJwk: JWK): Promise<StoredKey> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$executeRaw(developmentKeyTurn);
      const stored = await oldestIn(tx);
      if (stored) return stored;
      await tx.signingKey.create({ data: { kid, privateJwk: { ...privateJwk } } });
      return { kid, privateJwk };
    });
  }
}

type StoredKey = { kid: string; privateJwk: JWK };

async function oldestIn(prisma: Pick<AuthDatabase, 'signingKey'>): Promise<StoredKey | undefined> {
  const row = await prisma.signingKey.findFirst({ orderBy: [{ createdAt: 'asc' }, { kid: 'asc' }] });
  return row ? { kid: row.kid, privateJwk: row.privateJwk as JWK } : undefined;
}
