import { randomBytes } from 'node:crypto';
import { hash, verify, type Algorithm, type Options } from '@node-rs/argon2';

/**
 * Argon2id with OWASP's baseline parameters (m = 19 MiB, t = 2, p = 1): about 20-40 ms per hash on
 * a server core. `Algorithm` is a const enum, which isolatedModules cannot import; 2 is Argon2id.
 */
const ARGON2ID_OPTIONS: Options = { algorithm: 2 as Algorithm, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** What PasswordHasher uses of Argon2: @node-rs/argon2's `hash` and `verify` (a test counts the verifications). */
export interface Argon2 {
  hash(password: string, options: Options): Promise<string>;
  /** Rejects when `hashed` cannot be parsed: then it did no work. */
  verify(hashed: string, password: string): Promise<boolean>;
}

const NODE_RS_ARGON2: Argon2 = { hash, verify };

export class PasswordHasher {
  private constructor(
    private readonly argon2: Argon2,
    private readonly dummyHash: string,
  ) {}

  /**
   * Also hashes a random password once: logins for unknown usernames verify against it, so they take
   * as long as a wrong password for a known one and timing does not reveal which usernames exist.
   */
  static async create(argon2: Argon2 = NODE_RS_ARGON2): Promise<PasswordHasher> {
    return new PasswordHasher(argon2, await argon2.hash(randomBytes(32).toString('base64url'), ARGON2ID_OPTIONS));
  }

  hash(password: string): Promise<string> {
    return this.argon2.hash(password, ARGON2ID_OPTIONS);
  }

  /** False for a wrong password and for a stored hash that cannot be parsed. */
  async verify(storedHash: string, password: string): Promise<boolean> {
    try {
      return await this.argon2.verify(storedHash, password);
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
