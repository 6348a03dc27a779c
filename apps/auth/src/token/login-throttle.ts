import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { addressKeyOf, msUntilAllowed } from '@bedrequest/observability';
import { StoreUnavailableError, TooManyAttemptsError } from '../errors';

export interface LoginThrottleLimits {
  /** Failed logins for one username within the window (guessing one account's password). */
  readonly failuresPerUsername: number;
  /** Failed logins from one client address within the window (spraying passwords over accounts). */
  readonly failuresPerAddress: number;
  readonly windowSeconds: number;
}

/** One login attempt, counted against both limits until it turns out to be right. */
export interface CountedAttempt {
  readonly username: string;
  /** The address as counted: an IPv6 address's /64. */
  readonly addressKey: string;
}

/**
 * Counts login attempts in Redis (rate-limiter-flexible, shared by all auth replicas) and refuses
 * further attempts with 429 once a limit is reached, until the window has passed. Each attempt is
 * counted before its password is checked, in one atomic increment per limit, so that many guesses
 * sent at once cannot all pass a check made before any of them was counted; a successful login then
 * gives its count back (and clears the username's). Redis being down is a 503, never "unlimited".
 */
export class LoginThrottle {
  private readonly byUsername: RateLimiterRedis;
  private readonly byAddress: RateLimiterRedis;

  constructor(redis: Redis, limits: LoginThrottleLimits) {
    // ioredis is passed as storeClient (useRedisPackage is for node-redis only); keys get the
    // client's REDIS_KEY_PREFIX in front of keyPrefix. rejectIfRedisNotReady fails fast while down.
    const common = { storeClient: redis, duration: limits.windowSeconds, rejectIfRedisNotReady: true };
    this.byUsername = new RateLimiterRedis({ ...common, keyPrefix: 'auth:login-failures:username', points: limits.failuresPerUsername });
    this.byAddress = new RateLimiterRedis({ ...common, keyPrefix: 'auth:login-failures:address', points: limits.failuresPerAddress });
  }

  /** Counts the attempt; throws TooManyAttemptsError when it is over either limit (it stays counted). */
  async count(username: string, address: string): Promise<CountedAttempt> {
    const attempt = { username, addressKey: addressKeyOf(address) };
    const waits = await this.call(() => Promise.all([msUntilAllowed(this.byUsername, attempt.username), msUntilAllowed(this.byAddress, attempt.addressKey)]));
    const waitMs = Math.max(...waits);
    if (waitMs > 0) throw new TooManyAttemptsError(Math.max(1, Math.ceil(waitMs / 1000)));
    return attempt;
  }

  /** The attempt was right: its address gets its count back, and the username's failures are forgotten. */
  async succeeded(attempt: CountedAttempt): Promise<void> {
    await this.call(() => Promise.all([this.byUsername.delete(attempt.username), this.byAddress.reward(attempt.addressKey, 1)]));
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new StoreUnavailableError('redis', error);
    }
  }
}
