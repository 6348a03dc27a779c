import { Redis } from 'ioredis';
import { redisTls } from '@bedrequest/persistence';
import type { RedisPrincipal } from './plan';

/**
 * What a service's Redis user may run: the connection's own commands, the ready check's INFO, and
 * the data commands auth's refresh tokens and login throttle and the web app's sessions use
 * (scripts included: Redis checks the commands a script calls against the same list).
 */
const COMMANDS = [
  '+@connection',
  '+info',
  '+get',
  '+set',
  '+del',
  '+exists',
  '+expire',
  '+pexpire',
  '+ttl',
  '+pttl',
  '+incr',
  '+incrby',
  '+hset',
  '+hget',
  '+hgetall',
  '+multi',
  '+exec',
  '+discard',
  '+eval',
  '+evalsha',
  '+script|load',
];

/**
 * Per service an ACL user (docs/operations.md, "Provisioning") limited to the keys under its prefix
 * (`<REDIS_KEY_PREFIX>auth:`, `<REDIS_KEY_PREFIX>web:`), no channels, and the commands above.
 * `reset` first, so that running it again leaves exactly this. Redis keeps ACL users in memory:
 * a server without an ACL file (`aclfile`) forgets them on restart, and provisioning runs again.
 */
export async function provisionRedis(adminUrl: string, principals: readonly RedisPrincipal[]): Promise<string[]> {
  const redis = new Redis(adminUrl, { ...redisTls(adminUrl), lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    for (const principal of principals) {
      await redis.call(
        'ACL',
        'SETUSER',
        principal.user,
        'reset',
        'on',
        `>${principal.password}`,
        `~${globEscape(principal.keyPrefix)}*`,
        'resetchannels',
        '-@all',
        ...COMMANDS,
      );
    }
  } finally {
    redis.disconnect();
  }
  return principals.map((principal) => `Redis: user ${principal.user} set (keys ${principal.keyPrefix}*)`);
}

/** Removes the users of `principals` (an isolated stack's, when it stops). */
export async function removeRedisPrincipals(adminUrl: string, principals: readonly RedisPrincipal[]): Promise<void> {
  if (principals.length === 0) return;
  const redis = new Redis(adminUrl, { ...redisTls(adminUrl), lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.call('ACL', 'DELUSER', ...principals.map((principal) => principal.user));
  } finally {
    redis.disconnect();
  }
}

function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}
