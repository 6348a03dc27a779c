import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { StoreUnavailableError } from '../errors';

/** What a stored refresh token stands for. Only its SHA-256 is stored, never the token itself. */
export interface RefreshTokenRecord {
  readonly userId: string;
  /** All tokens descending from one login; reuse of any used one revokes them all. */
  readonly familyId: string;
  /** When the login the family descends from happened (epoch ms); unknown for tokens stored before it was kept. */
  readonly loginAtMs?: number;
}

export type RotationOutcome = 'rotated' | 'reused' | 'revoked' | 'unknown';

/**
 * Atomically replaces a refresh token by its successor (OAuth 2.0 Security BCP, refresh token
 * rotation with reuse detection). Of two concurrent refreshes with one token exactly one finds it
 * `active`; the other finds it `used`, which is reuse: the family is revoked.
 *
 * KEYS[1] presented token, KEYS[2] its family, KEYS[3] the successor.
 * ARGV[1] user id, ARGV[2] family id, ARGV[3] lifetime in seconds, ARGV[4] the family's login time
 * (epoch ms, empty when unknown). The family keeps the expiry it was given at login: its absolute
 * lifetime, which no rotation extends.
 */
const ROTATE_SCRIPT = `
local state = redis.call('HGET', KEYS[1], 'state')
if not state then return 'unknown' end
if state ~= 'active' then
  redis.call('DEL', KEYS[2])
  return 'reused'
end
if redis.call('EXISTS', KEYS[2]) == 0 then return 'revoked' end
redis.call('HSET', KEYS[1], 'state', 'used')
redis.call('HSET', KEYS[3], 'userId', ARGV[1], 'familyId', ARGV[2], 'state', 'active')
if ARGV[4] ~= '' then redis.call('HSET', KEYS[3], 'loginAt', ARGV[4]) end
redis.call('EXPIRE', KEYS[3], ARGV[3])
return 'rotated'
`;

/**
 * Refresh tokens in Redis (under the client's REDIS_KEY_PREFIX):
 * `auth:refresh:token:<sha256>` → hash {userId, familyId, loginAt, state: active|used}, kept until it expires
 * even when used, so that a replay is recognised; `auth:refresh:family:<id>` exists while the family
 * is valid. Each new token gets the full lifetime (a sliding window: a client refreshing at least
 * once per lifetime stays logged in; a disabled user cannot refresh), but the family ends
 * `familyMaxAgeSeconds` after its login however often it was refreshed: then a login is needed.
 */
export class RefreshTokenRepository {
  constructor(
    private readonly redis: Redis,
    private readonly lifetimeSeconds: number,
    private readonly familyMaxAgeSeconds: number,
  ) {}

  /** Stores the first token of a new family (at login). */
  async startFamily(token: string, userId: string, loginAtMs: number): Promise<void> {
    const familyId = randomUUID();
    await this.call(() =>
      this.redis
        .multi()
        .set(familyKey(familyId), userId, 'EX', this.familyMaxAgeSeconds)
        .hset(tokenKey(token), { userId, familyId, loginAt: String(loginAtMs), state: 'active' })
        .expire(tokenKey(token), this.lifetimeSeconds)
        .exec(),
    );
  }

  async find(token: string): Promise<RefreshTokenRecord | undefined> {
    const fields = await this.call(() => this.redis.hgetall(tokenKey(token)));
    if (!fields.userId || !fields.familyId) return undefined;
    const loginAtMs = Number(fields.loginAt);
    return { userId: fields.userId, familyId: fields.familyId, ...(fields.loginAt && Number.isFinite(loginAtMs) ? { loginAtMs } : {}) };
  }

  async rotate(presented: string, successor: string, record: RefreshTokenRecord): Promise<RotationOutcome> {
    const outcome = await this.call(() =>
      this.redis.eval(
        ROTATE_SCRIPT,
        3,
        tokenKey(presented),
        familyKey(record.familyId),
        tokenKey(successor),
        record.userId,
        record.familyId,
        String(this.lifetimeSeconds),
        record.loginAtMs === undefined ? '' : String(record.loginAtMs),
      ),
    );
    return outcome as RotationOutcome;
  }

  async revokeFamily(familyId: string): Promise<void> {
    await this.call(() => this.redis.del(familyKey(familyId)));
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new StoreUnavailableError('redis', error);
    }
  }
}

const tokenKey = (token: string) => `auth:refresh:token:${createHash('sha256').update(token).digest('hex')}`;
const familyKey = (familyId: string) => `auth:refresh:family:${familyId}`;
