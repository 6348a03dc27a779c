import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { openAuthDatabase, type AuthDatabase } from '../persistence/database';
import { SigningKeyRepository } from './signing-key.repository';
import { loadSigningKeys } from './signing-keys';

describe('the development signing key, kept in the real PostgreSQL', () => {
  let prisma: AuthDatabase;

  beforeAll(async () => {
    prisma = await openAuthDatabase({ databaseUrl: testEnvironment().databaseUrl, schema: uniqueName('auth_keys'), poolSize: 4 });
  });
  afterAll(() => prisma.$disconnect());

  it('is generated on the first start and reused by later starts and concurrent replicas', async () => {
    const starts = await Promise.all(
      Array.from({ length: 3 }, () => loadSigningKeys({ nodeEnv: 'development', developmentKeys: new SigningKeyRepository(prisma) })),
    );
    const later = await loadSigningKeys({ nodeEnv: 'development', developmentKeys: new SigningKeyRepository(prisma) });

    const kids = new Set([...starts, later].map((keys) => keys.current.kid));
    expect(kids.size).toBe(1);
    expect(later.jwks.keys).toEqual([expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: later.current.kid })]);
    expect(later.jwks.keys[0]).not.toHaveProperty('d');
  });
});
