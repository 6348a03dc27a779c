import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { caOptionFor } from '@bedrequest/config';

/**
 * The Redis client of a service that keeps shared state there (auth's refresh tokens and login
 * throttle, the web app's sessions): every key under the service's prefix, and commands that fail
 * fast while Redis is down instead of queueing without bound, so that the caller answers 503 at
 * once; the connection is retried in the background (at most every 5 s). A rediss:// URL is
 * verified against TLS_CA_FILE (redisTls).
 */
export function openRedis(config: { REDIS_URL: string; REDIS_KEY_PREFIX: string }, logger: Logger): Redis {
  const redis = new Redis(config.REDIS_URL, {
    ...redisTls(config.REDIS_URL),
    keyPrefix: config.REDIS_KEY_PREFIX,
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  });
  redis.on('error', (error) => logger.warn({ err: error.message }, 'redis unavailable'));
  return redis;
}

/** Closes the client, waiting for the replies of commands already sent. */
export async function closeRedis(redis: Redis): Promise<void> {
  await redis.quit().catch(() => redis.disconnect());
}

/**
 * ioredis's TLS options for `url`: for rediss://, the server verified against TLS_CA_FILE
 * (@bedrequest/config, caOptionFor; docs/operations.md, "Encryption in transit"); nothing for redis://.
 */
export function redisTls(url: string): { tls?: { ca?: string } } {
  return new URL(url).protocol === 'rediss:' ? { tls: caOptionFor(url) } : {};
}
