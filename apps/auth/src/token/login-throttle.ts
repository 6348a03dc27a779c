import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import { addressKeyOf, msUntilAllowed } from '@bedrequest/observability';
import { StoreUnavailableError, TooManyAttemptsError } from '../errors';

export interface LoginThrottleLimits {
  /** Failed logins for one username from one client address within the window (guessing one account's password). */
  readonly failuresPerUsernameAndAddress: number;
  /** Failed logins from one client address within the window, whatever the usernames (spraying passwords over accounts). */
  readonly failuresPerAddress: number;
  /**
   * Failed logins for one username from all addresses within the window (guessing from many
   * addresses); over it, only addresses the username has logged in from are let in.
   */
  readonly failuresPerUsername: number;
  readonly windowSeconds: number;
  /** How long an address stays known for a username after a successful login from it. */
  readonly knownAddressSeconds: number;
}

/** One login attempt, counted against the limits until it turns out to be right. */
export interface CountedAttempt {
  readonly username: string;
  /** The address as counted: an IPv6 address's /64. */
  readonly addressKey: string;
}

/**
 * Counts login attempts in Redis (rate-limiter-flexible, shared by all auth replicas) and refuses
 * further attempts with 429 once a limit is reached, until the window has passed (docs/parties.md,
 * "Throttling"). Failures lock a username only from the address they came from, so that whoever
 * knows a username cannot lock its owner out; the limit per username across addresses refuses only
 * addresses the username has not logged in from. Each attempt is counted before its password is
 * checked, in one atomic increment per limit, so that many guesses sent at once cannot all pass a
 * check made before any of them was counted; a successful login then gives its count back (and
 * clears its address's failures for the username). Unknown usernames are counted exactly as known
 * ones. Redis being down is a 503, never "unlimited".
 */
export class LoginThrottle {
  private readonly byUsernameAndAddress: RateLimiterRedis;
  private readonly byAddress: RateLimiterRedis;
  private readonly byUsername: RateLimiterRedis;

  constructor(
    private readonly redis: Redis,
    private readonly limits: LoginThrottleLimits,
  ) {
    // ioredis is passed as storeClient (useRedisPackage is for node-redis only); keys get the
    // client's REDIS_KEY_PREFIX in front of keyPrefix. rejectIfRedisNotReady fails fast while down.
    const common = { storeClient: redis, duration: limits.windowSeconds, rejectIfRedisNotReady: true };
    this.byUsernameAndAddress = new RateLimiterRedis({
      ...common,
      keyPrefix: 'auth:login-failures:username-address',
      points: limits.failuresPerUsernameAndAddress,
    });
    this.byAddress = new RateLimiterRedis({ ...common, keyPrefix: 'auth:login-failures:address', points: limits.failuresPerAddress });
    this.byUsername = new RateLimiterRedis({ ...common, keyPrefix: 'auth:login-failures:username', points: limits.failuresPerUsername });
  }

  /** Counts the attempt; throws TooManyAttemptsError when it is over a limit (it stays counted). */
  async count(username: string, address: string): Promise<CountedAttempt> {
    const attempt = { username, addressKey: addressKeyOf(address) };
    const waitMs = await this.call(async () => {
      const waits = await Promise.all([msUntilAllowed(this.byUsernameAndAddress, pairOf(attempt)), msUntilAllowed(this.byAddress, attempt.addressKey)]);
      // Only attempts an address may make count for the username everywhere: one address alone,
      // guessing on after its own lock, must not push the username over its limit.
      if (Math.max(...waits) > 0) return Math.max(...waits);
      const usernameWait = await msUntilAllowed(this.byUsername, attempt.username);
      if (usernameWait === 0) return 0;
      return (await this.redis.exists(knownKeyOf(attempt))) ? 0 : usernameWait;
    });
    if (waitMs > 0) throw new TooManyAttemptsError(Math.max(1, Math.ceil(waitMs / 1000)));
    return attempt;
  }

  /**
   * The attempt was right: the username's failures from this address are forgotten, the address
   * becomes known for the username, and the other counts get the attempt back.
   */
  async succeeded(attempt: CountedAttempt): Promise<void> {
    await this.call(() =>
      Promise.all([
        this.byUsernameAndAddress.delete(pairOf(attempt)),
        this.byAddress.reward(attempt.addressKey, 1),
        this.byUsername.reward(attempt.username, 1),
        this.redis.set(knownKeyOf(attempt), '1', 'EX', this.limits.knownAddressSeconds),
      ]),
    );
  }

  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw new StoreUnavailableError('redis', error);
    }
  }
}

/** An address key holds no `|` (an IPv4 address, an IPv6 /64, `unknown`), so the first one ends it. */
function pairOf(attempt: CountedAttempt): string {
  return `${attempt.addressKey}|${attempt.username}`;
}

function knownKeyOf(attempt: CountedAttempt): string {
  return `auth:login-known-address:${pairOf(attempt)}`;
}
