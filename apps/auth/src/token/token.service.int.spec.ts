import { hash, verify } from '@node-rs/argon2';
import { Redis } from 'ioredis';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { InvalidCredentialsError } from '../errors';
import { loadSigningKeys } from '../keys/signing-keys';
import { SigningKeyRepository } from '../keys/signing-key.repository';
import { PasswordHasher, type Argon2 } from '../passwords/password-hasher';
import { openAuthDatabase, type AuthDatabase } from '../persistence/database';
import { UserRepository } from '../users/user.repository';
import { AccessTokenIssuer } from './access-token.service';
import { LoginThrottle } from './login-throttle';
import { RefreshTokenRepository } from './refresh-token.repository';
import { TokenService } from './token.service';

const env = testEnvironment();

/** The work an Argon2 verification does, from the hash it verifies against (PHC string format). */
interface Argon2Work {
  algorithm: string;
  version: string;
  /** m (memory, KiB), t (passes), p (lanes): these set the cost. */
  parameters: string;
  saltBytes: number;
  hashBytes: number;
}

function workOf(phc: string): Argon2Work {
  const [, algorithm = '', version = '', parameters = '', salt = '', digest = ''] = phc.split('$');
  return { algorithm, version, parameters, saltBytes: Buffer.from(salt, 'base64').length, hashBytes: Buffer.from(digest, 'base64').length };
}

/**
 * Whether a username exists must not show in how long its refusal takes. Timing is the bench's, not
 * a test's: what is checked here is the work, counted through the hasher's Argon2 (the real one,
 * @node-rs/argon2): every refusal makes exactly one verification, which runs to its end (a hash that
 * cannot be parsed is refused at once, without the work), against a hash of the same parameters.
 */
describe('TokenService refusals: the same Argon2 work whether or not the username exists, against the real PostgreSQL and Redis', () => {
  let prisma: AuthDatabase;
  let redis: Redis;
  let sut: TokenService;
  let stored: Argon2Work;
  const verifications: (Argon2Work & { ranToItsEnd: boolean })[] = [];
  const counted: Argon2 = {
    hash: (password, options) => hash(password, options),
    async verify(hashed, password) {
      try {
        const matches = await verify(hashed, password);
        verifications.push({ ...workOf(hashed), ranToItsEnd: true });
        return matches;
      } catch (error) {
        verifications.push({ ...workOf(hashed), ranToItsEnd: false });
        throw error;
      }
    },
  };

  beforeAll(async () => {
    prisma = await openAuthDatabase({ databaseUrl: env.databaseUrl, schema: uniqueName('auth_refusals'), poolSize: 2 });
    redis = new Redis(env.redisUrl, { keyPrefix: `${env.redisKeyPrefix}${uniqueName('refusals')}:` });
    const passwords = await PasswordHasher.create(counted);
    const users = new UserRepository(prisma);
    const account = (username: string, password: string) => passwords.hash(password).then((passwordHash) => ({ username, passwordHash }));
    for (const { username, passwordHash } of [await account('hospital', 'referrer-password-1'), await account('leaving', 'leaving-password-1')]) {
      await users.create({ username, role: 'referrer', ikNumbers: ['260000001'], fhirBase: 'https://demo-hospital.example/fhir', passwordHash });
    }
    await users.disable('leaving', new Date());
    stored = workOf((await users.findByUsername('hospital'))!.passwordHash);
    sut = new TokenService({
      users,
      passwords,
      // High limits: this test is about the work of a refusal, not throttling.
      throttle: new LoginThrottle(redis, {
        failuresPerUsernameAndAddress: 1_000,
        failuresPerAddress: 1_000,
        failuresPerUsername: 1_000,
        windowSeconds: 60,
        knownAddressSeconds: 60,
      }),
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

  /** The Argon2 verifications one refused login made. */
  const verificationsOfRefusal = async (username: string, password: string) => {
    verifications.length = 0;
    await expect(sut.login({ username, password, clientAddress: '192.0.2.1' })).rejects.toBeInstanceOf(InvalidCredentialsError);
    return [...verifications];
  };

  it('verifies against a hash of the stored hashes’ parameters, once and to its end, for an unknown username as for a wrong password or a disabled user', async () => {
    // OWASP's Argon2id baseline (password-hasher.ts): the work every refusal must cost.
    expect(stored).toEqual({ algorithm: 'argon2id', version: 'v=19', parameters: 'm=19456,t=2,p=1', saltBytes: 16, hashBytes: 32 });
    const once = [{ ...stored, ranToItsEnd: true }];

    expect({
      unknownUsername: await verificationsOfRefusal('nobody', 'wrong-password'),
      wrongPassword: await verificationsOfRefusal('hospital', 'wrong-password'),
      // The right password: refused all the same, after the same verification.
      disabledUser: await verificationsOfRefusal('leaving', 'leaving-password-1'),
    }).toEqual({ unknownUsername: once, wrongPassword: once, disabledUser: once });
  });

  it('counts the one verification of a successful login too (a positive control of the counting)', async () => {
    verifications.length = 0;
    await expect(sut.login({ username: 'hospital', password: 'referrer-password-1', clientAddress: '192.0.2.1' })).resolves.toMatchObject({
      tokenType: 'Bearer',
    });
    expect(verifications).toEqual([{ ...stored, ranToItsEnd: true }]);
  });
});
