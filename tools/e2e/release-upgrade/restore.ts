// Puts a recording of an earlier release (tools/e2e/fixtures/release-<release>/README.md) where a stack
// about to start finds it, as a database and a Redis that release wrote: startE2eStack's `prepare`.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { provisionPlan } from '@bedrequest/provision';
import { SCHEMA_SERVICES, type RecordedRedisKey, type Recording } from './recording';

export const fixtureFolder = (release: string) => join(__dirname, '..', 'fixtures', `release-${release}`);

export function readRecording(release: string): Recording {
  return JSON.parse(readFileSync(join(fixtureFolder(release), 'recording.json'), 'utf8')) as Recording;
}

/**
 * Restores the recording of `release` into the schemas and under the Redis key prefix `env` names,
 * before the stack is provisioned: each schema owned by its service's owner role (provisioning
 * finds the role and keeps it), as provisioning of that release left it, so that the next
 * provisioning runs the newer migrations on it as it would in production (docs/operations.md,
 * "Provisioning"). Auth's Redis keys get the lifetimes they had left when recorded.
 */
export async function restoreRecording(release: string, env: Readonly<Record<string, string>>): Promise<void> {
  const folder = fixtureFolder(release);
  const recording = readRecording(release);
  const plan = provisionPlan(env, { generatePasswords: true });
  const client = new Client({ connectionString: env.DATABASE_URL });
  await client.connect();
  try {
    for (const service of SCHEMA_SERVICES) {
      const principal = plan.database.find((candidate) => candidate.service === service);
      if (!principal) throw new Error(`the provisioning plan has no schema for ${service}`);
      const [owner, schema] = [client.escapeIdentifier(principal.owner), client.escapeIdentifier(principal.schema)];
      const { rowCount } = await client.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [principal.owner]);
      if (!rowCount) await client.query(`CREATE ROLE ${owner} NOLOGIN`);
      await client.query(`CREATE SCHEMA ${schema} AUTHORIZATION ${owner}`);
      const dump = readFileSync(join(folder, `${service}.sql`), 'utf8')
        .replace(new RegExp(`^CREATE SCHEMA ${recording.schemaPrefix}${service};$`, 'm'), '')
        .replace(new RegExp(`\\b${recording.schemaPrefix}${service}\\b`, 'g'), principal.schema);
      await client.query(`SET ROLE ${owner}`);
      await client.query(dump);
      await client.query('RESET ROLE');
      // The dump empties the search path for its session.
      await client.query('RESET search_path');
    }
  } finally {
    await client.end();
  }
  await restoreRedisKeys(JSON.parse(readFileSync(join(folder, 'auth-redis.json'), 'utf8')) as RecordedRedisKey[], env);
}

async function restoreRedisKeys(keys: readonly RecordedRedisKey[], env: Readonly<Record<string, string>>): Promise<void> {
  const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  try {
    const write = redis.multi();
    for (const recorded of keys) {
      const key = `${env.REDIS_KEY_PREFIX ?? ''}${recorded.key}`;
      if (recorded.type === 'string') write.set(key, recorded.value);
      else if (recorded.type === 'hash') write.hset(key, recorded.value);
      else if (recorded.type === 'set') write.sadd(key, ...recorded.value);
      else if (recorded.type === 'list') write.rpush(key, ...recorded.value);
      else for (const [member, score] of recorded.value) write.zadd(key, score, member);
      if (recorded.ttlMs > 0) write.pexpire(key, recorded.ttlMs);
    }
    const failed = (await write.exec())?.find(([error]) => error);
    if (failed) throw new Error(`restoring auth's Redis keys: ${String(failed[0])}`);
  } finally {
    redis.disconnect();
  }
}
