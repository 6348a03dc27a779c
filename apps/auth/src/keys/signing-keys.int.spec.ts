import { exportJWK, generateKeyPair } from 'jose';
import { Pool } from 'pg';
import { testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { openAuthDatabase, type AuthDatabase } from '../persistence/database';
import { DEVELOPMENT_KEY_LOCK, SigningKeyRepository, developmentKeyTurn } from './signing-key.repository';
import { loadSigningKeys } from './signing-keys';

describe('the development signing key, kept in the real PostgreSQL', () => {
  let prisma: AuthDatabase;
  /** A second replica's connections. */
  let other: AuthDatabase;
  let pool: Pool;

  beforeAll(async () => {
    const schema = uniqueName('auth_keys');
    prisma = await openAuthDatabase({ databaseUrl: testEnvironment().databaseUrl, schema, poolSize: 4 });
    other = await openAuthDatabase({ databaseUrl: testEnvironment().databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: testEnvironment().databaseUrl, max: 1 });
  });
  afterAll(() => Promise.all([prisma.$disconnect(), other.$disconnect(), pool.end()]));
  beforeEach(() => prisma.signingKey.deleteMany());

  const load = (database: AuthDatabase) => loadSigningKeys({ nodeEnv: 'development', developmentKeys: new SigningKeyRepository(database) });

  it('is generated on the first start and reused by later starts and concurrent replicas', async () => {
    const starts = await Promise.all(Array.from({ length: 3 }, () => load(prisma)));
    const later = await load(prisma);

    const kids = new Set([...starts, later].map((keys) => keys.current.kid));
    expect(kids.size).toBe(1);
    expect(later.jwks.keys).toEqual([expect.objectContaining({ kty: 'OKP', crv: 'Ed25519', kid: later.current.kid })]);
    expect(later.jwks.keys[0]).not.toHaveProperty('d');
  });

  // CI once saw two kids among three concurrent starts: a replica read back the key it had just
  // stored while another's earlier insert was not yet committed, and later starts read that one.
  it('a start while another replica is storing its key waits for it and goes on with that key', async () => {
    const { privateKey } = await generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true });
    const storing = { kid: 'stored-by-the-other-replica', privateJwk: await exportJWK(privateKey) };
    let meanwhile: Promise<Awaited<ReturnType<typeof load>>> | undefined;
    let finished = false;

    await other.$transaction(async (tx) => {
      await tx.$executeRaw(developmentKeyTurn);
      await tx.signingKey.create({ data: { kid: storing.kid, privateJwk: storing.privateJwk } });
      meanwhile = load(prisma).finally(() => (finished = true));
      // Until this start waits for the turn (or, not waiting, has finished with a key of its own).
      await waitFor(async () => finished || (await startsWaiting()) > 0, { timeoutMs: 10_000, what: 'the start to wait for its turn' });
    });
    const started = await meanwhile!;
    const later = await load(prisma);

    expect(started.current.kid).toBe(storing.kid);
    expect(later.current.kid).toBe(storing.kid);
    expect(await prisma.signingKey.count()).toBe(1);
  });

  /** Connections waiting for the development key's turn. */
  async function startsWaiting(): Promise<number> {
    const { rows } = await pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_locks
        WHERE locktype = 'advisory' AND NOT granted AND ((classid::bigint << 32) | objid::bigint) = hashtextextended($1, 0)`,
      [DEVELOPMENT_KEY_LOCK],
    );
    return rows[0]!.n;
  }
});
