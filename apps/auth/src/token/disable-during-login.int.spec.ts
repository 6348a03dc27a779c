import { hash, verify } from '@node-rs/argon2';
import { Redis } from 'ioredis';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { principalOfClaims, RevocationList, type PartyClaims } from '@bedrequest/tokens';
import { loadSigningKeys } from '../keys/signing-keys';
import { SigningKeyRepository } from '../keys/signing-key.repository';
import { PasswordHasher, type Argon2 } from '../passwords/password-hasher';
import { openAuthDatabase, type AuthDatabase } from '../persistence/database';
import { UserRepository } from '../users/user.repository';
import { AccessTokenIssuer } from './access-token.service';
import { LoginThrottle } from './login-throttle';
import { RefreshTokenRepository } from './refresh-token.repository';
import { RevocationRepository } from './revocation.repository';
import { TokenService } from './token.service';

const env = testEnvironment();
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as PartyClaims & { iat: number };

/**
 * A disable that commits while a login or refresh of the same person runs, after auth read them as
 * enabled: what that login issues must be revoked by it (docs/parties.md, "Disabling"). The login
 * here is made slow on purpose: the disable lands during its password check, and its clock then moves
 * on by seconds, as a login on a busy machine may take; a token stamped with the moment it is signed
 * would be issued after the revocation and outlive it.
 */
describe('TokenService: a disable during a login revokes what the login issues, against the real PostgreSQL and Redis', () => {
  let prisma: AuthDatabase;
  let redis: Redis;
  let users: UserRepository;
  let sut: TokenService;
  let revocations: RevocationList;
  let offsetMs = 0;
  let duringVerification: (() => Promise<void>) | undefined;
  const argon2: Argon2 = {
    hash: (password, options) => hash(password, options),
    async verify(hashed, password) {
      const matches = await verify(hashed, password);
      await duringVerification?.();
      return matches;
    },
  };

  beforeAll(async () => {
    prisma = await openAuthDatabase({ databaseUrl: env.databaseUrl, schema: uniqueName('auth_disable_race'), poolSize: 2 });
    redis = new Redis(env.redisUrl, { keyPrefix: `${env.redisKeyPrefix}${uniqueName('disable_race')}:` });
    const passwords = await PasswordHasher.create(argon2);
    users = new UserRepository(prisma);
    await users.create({
      username: 'leaving',
      role: 'referrer',
      ikNumbers: ['260000001'],
      fhirBase: 'https://demo-hospital.example/fhir',
      passwordHash: await passwords.hash('leaving-password-1'),
    });
    sut = new TokenService({
      users,
      passwords,
      throttle: new LoginThrottle(redis, {
        failuresPerUsernameAndAddress: 100,
        failuresPerAddress: 100,
        failuresPerUsername: 100,
        windowSeconds: 60,
        knownAddressSeconds: 60,
      }),
      accessTokens: new AccessTokenIssuer({
        keys: await loadSigningKeys({ nodeEnv: 'test', developmentKeys: new SigningKeyRepository(prisma) }),
        issuer: 'iss',
        audience: 'aud',
        now: () => Date.now() + offsetMs,
      }),
      refreshTokens: new RefreshTokenRepository(redis, 60, 600),
      logger: silentLogger(),
    });
    const repository = new RevocationRepository(prisma);
    revocations = new RevocationList({ load: () => repository.recent(), pollIntervalMs: 60_000, logger: silentLogger() });
  });
  afterAll(async () => {
    await revocations.stop();
    redis.disconnect();
    await prisma.$disconnect();
  });

  it('stamps the access token and the refresh family with the moment the login began, so the revocation covers both', async () => {
    duringVerification = async () => {
      duringVerification = undefined;
      await users.disable('leaving', new Date());
      offsetMs = 3_000;
    };
    const pair = await sut.login({ username: 'leaving', password: 'leaving-password-1', clientAddress: '192.0.2.1' });

    const claims = claimsOf(pair.accessToken);
    await revocations.refresh();
    expect(revocations.revokes(principalOfClaims(claims), claims.iat)).toBe(true);

    // Enabled again: the session that login began stays ended.
    offsetMs = 0;
    const { passwordHash } = (await users.findByUsername('leaving'))!;
    await users.upsert({ username: 'leaving', passwordHash, role: 'referrer', ikNumbers: ['260000001'], fhirBase: 'https://demo-hospital.example/fhir' });
    await expect(sut.refresh(pair.refreshToken)).rejects.toMatchObject({ name: 'InvalidRefreshTokenError' });
  });
});
