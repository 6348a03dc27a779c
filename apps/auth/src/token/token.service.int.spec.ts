import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { InvalidCredentialsError } from '../errors';
import { loadSigningKeys } from '../keys/signing-keys';
import { SigningKeyRepository } from '../keys/signing-key.repository';
import { PasswordHasher } from '../passwords/password-hasher';
import { openAuthDatabase, type AuthDatabase } from '../persistence/database';
import { UserRepository } from '../users/user.repository';
import { AccessTokenIssuer } from './access-token.service';
import { LoginThrottle } from './login-throttle';
import { RefreshTokenRepository } from './refresh-token.repository';
import { TokenService } from './token.service';

const env = testEnvironment();

describe('TokenService login timing, against the real PostgreSQL and Redis', () => {
  let prisma: AuthDatabase;
  let redis: Redis;
  let passwords: PasswordHasher;
  let sut: TokenService;

  beforeAll(async () => {
    prisma = await openAuthDatabase({ databaseUrl: env.databaseUrl, schema: uniqueName('auth_timing'), poolSize: 2 });
    redis = new Redis(env.redisUrl, { keyPrefix: `${env.redisKeyPrefix}${uniqueName('timing')}:` });
    passwords = await PasswordHasher.create();
    const users = new UserRepository(prisma);
    await users.create({
      username: 'hospital',
      role: 'referrer',
      ikNumbers: ['260000001'],
      fhirBase: 'https://demo-hospital.example/fhir',
      passwordHash: await passwords.hash('referrer-password-1'),
    });
    sut = new TokenService({
      users,
      passwords,
      // High limits: this test is about timing, not throttling.
      throttle: new LoginThrottle(redis, { failuresPerUsername: 1_000, failuresPerAddress: 1_000, windowSeconds: 60 }),
      accessTokens: new AccessTokenIssuer({
        keys: await loadSigningKeys({ nodeEnv: 'test', developmentKeys: new SigningKeyRepository(prisma) }),
        issuer: 'iss',
        audience: 'aud',
        now: Date.now,
      }),
      refreshTokens: new RefreshTokenRepository(redis, 60, 600),
      logger: silentLogger(),
    });
  });
  afterAll(async () => {
    redis.disconnect();
    await prisma.$disconnect();
  });

  const refusalTime = async (username: string) => {
    const started = performance.now();
    await expect(sut.login({ username, password: 'wrong-password', clientAddress: '192.0.2.1' })).rejects.toBeInstanceOf(InvalidCredentialsError);
    return performance.now() - started;
  };
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

  it('spends one Argon2 verification on an unknown username, as on a wrong password', async () => {
    const verify = jest.spyOn(passwords, 'verify');

    await refusalTime('nobody');
    await refusalTime('hospital');

    // Unknown user: the dummy hash; known user: the stored hash. One verification each.
    expect(verify).toHaveBeenCalledTimes(2);
    verify.mockRestore();
  });

  it('takes about as long to refuse an unknown username as a wrong password', async () => {
    const unknown: number[] = [];
    const wrong: number[] = [];
    for (let round = 0; round < 7; round += 1) {
      unknown.push(await refusalTime(`nobody-${round}`));
      wrong.push(await refusalTime('hospital'));
    }

    // Argon2 (tens of ms) dominates both; without the dummy verification the unknown user would be
    // refused in about a millisecond. The bounds are wide so that a busy machine does not fail this.
    const ratio = median(unknown) / median(wrong);
    expect(ratio).toBeGreaterThan(0.5);
    expect(ratio).toBeLessThan(2);
  });
});
