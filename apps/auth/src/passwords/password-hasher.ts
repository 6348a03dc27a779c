import { randomBytes } from 'node:crypto';
import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2';

/**
 * Argon2id with OWASP's baseline parameters (m = 19 MiB, t = 2, p = 1): about 20-40 ms per hash on
 * a server core. `Algorithm` is a const enum, which isolatedModules cannot import; 2 is Argon2id.
 */
const ARGON2ID_OPTIONS: Options = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

export class PasswordHasher {
  private constructor(private readonly dummyHash: string) {}

  /**
   * Also hashes a random password once: logins for unknown usernames verify against it, so they take
   * as long as a wrong password for a known one and timing does not reveal which usernames exist.
   */
  static async create(): Promise<PasswordHasher> {
    return new PasswordHasher(await hash(randomBytes(32).toString('base64url'), ARGON2ID_OPTIONS));
  }

  hash(password: string): Promise<string> {
    return hash(password, ARGON2ID_OPTIONS);
  }

  /** False for a wrong password and for a stored hash that cannot be parsed. */
  async verify(storedHash: string, password: string): Promise<boolean> {
    try {
      return await verify(storedHash, password);
    } catch {
      return false;
    }
  }

  /** The same work as `verify`, for a username that does not exist; always false. */
  async verifyUnknownUser(password: string): Promise<false> {
    await this.verify(this.dummyHash, password);
    return false;
  }
}
