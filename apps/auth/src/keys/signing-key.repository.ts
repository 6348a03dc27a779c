import type { JWK } from 'jose';
import type { AuthDatabase } from '../persistence/database';
import type { DevelopmentKeyStore } from './signing-keys';

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
