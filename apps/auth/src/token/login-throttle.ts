import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { StoreUnavailableError, TooManyAttemptsError } from '../errors';

export interface LoginThrottleLimits {
  /** Failed logins for one username within the window (guessing one account's password). */
  readonly failuresPerUsername: number;
  /** Failed logins from one client address within the window (spraying passwords over accounts). */
  readonly failuresPerAddress: number;
  readonly windowSeconds: number;
}

/**
 * Counts failed logins in Redis (rate-limiter-flexible, shared by all auth replicas) and refuses
 * further attempts with 429 once a limit is reached, until the window has passed. A successful login
 * clears the username's count. Redis being down is a 503, never "unlimited".
 */
export class LoginThrottle {
  private readonly byUsername: RateLimiterRedis;
  private readonly byAddress: RateLimiterRedis;

  constructor(
    redis: Redis,
    private readonly limits: LoginThrottleLimits,
  ) {
    // ioredis is passed as storeClient (useRedisPackage is for node-redis only); keys get the
    // client's REDIS_KEY_PREFIX in front of keyPrefix. rejectIfRedisNotReady fails fast while down.
    const common = { storeClient: redis, duration: limits.windowSeconds, rejectIfRedisNotReady: true };
    this.byUsername = new RateLimiterRedis({ ...common, keyPrefix: 'auth:login-failures:username', points: limits.failuresPerUsername });
    this.byAddress = new RateLimiterRedis({ ...common, keyPrefix: 'auth:login-failures:address', points: limits.failuresPerAddress });
  }

  /** Throws TooManyAttemptsError when either limit is used up. */
  async assertAllowed(username: string, address: string): Promise<void> {
    const [user, client] = await this.call(() => Promise.all([this.byUsername.get(username), this.byAddress.get(address)]));
    const waitMs = Math.max(exhaustedFor(user, this.limits.failuresPerUsername), exhaustedFor(client, this.limits.failuresPerAddress));
    if (waitMs > 0) throw new TooManyAttemptsError(Math.max(1, Math.ceil(waitMs / 1000)));
  }

  async recordFailure(username: string, address: string): Promise<void> {
    await this.call(() => Promise.all([consume(this.byUsername, username), consume(this.byAddress, address)]));
  }

  async recordSuccess(username: string): Promise<void> {
    await this.call(() => this.byUsername.delete(username));
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new StoreUnavailableError('redis', error);
    }
  }
}

/** Milliseconds until a used-up limit frees up again; 0 while attempts are left. */
function exhaustedFor(res: RateLimiterRes | null, limit: number): number {
  return res !== null && res.consumedPoints >= limit ? Math.max(res.msBeforeNext, 1) : 0;
}

/** Counts one failure; reaching the limit rejects with a RateLimiterRes, which is not an error here. */
async function consume(limiter: RateLimiterRedis, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
  }
}
