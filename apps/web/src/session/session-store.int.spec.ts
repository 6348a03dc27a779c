import { Redis } from 'ioredis';
import { closeRedis, openRedis } from '@bedrequest/persistence';
import { silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { csrfSecretOf } from './csrf';
import { SessionStore, type SessionRecord } from './session-store';

/** Two web processes' clients of the same Redis and prefix: what they share is all a session is. */
describe('the session store, against the real Redis', () => {
  const env = testEnvironment();
  const prefix = `${env.redisKeyPrefix}${uniqueName('web')}:`;
  let one: Redis;
  let other: Redis;
  let raw: Redis;

  beforeAll(async () => {
    one = openRedis({ REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: prefix }, silentLogger());
    other = openRedis({ REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: prefix }, silentLogger());
    raw = new Redis(env.redisUrl);
    await waitFor(() => one.status === 'ready' && other.status === 'ready', { what: 'Redis' });
  });

  afterAll(async () => {
    const keys = await raw.keys(`${prefix}*`);
    if (keys.length) await raw.del(...keys);
    await Promise.all([closeRedis(one), closeRedis(other), closeRedis(raw)]);
  });

  const record = (n: number): SessionRecord => ({
    accessToken: `access-token-${n}`,
    refreshToken: `refresh-token-${n}`,
    principal: { partyId: 'user-1', role: 'clinic', ikNumbers: ['510000001'] },
  });

  it('serves a session saved by one process to another, and keeps neither its id nor its tokens readable in Redis', async () => {
    const first = new SessionStore(one, { ttlSeconds: 60 });
    const id = first.newId();
    await first.save(id, record(1));

    expect(await new SessionStore(other, { ttlSeconds: 60 }).load(id)).toEqual(record(1));
    const keys = await raw.keys(`${prefix}web:session:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(id);
    const stored = (await raw.getBuffer(keys[0]!))!;
    expect(stored.toString('latin1')).not.toMatch(/token|user-1|510000001/);
    expect(await raw.ttl(keys[0]!)).toBeGreaterThan(50);
  });

  it('opens no session for an unknown, malformed or removed id', async () => {
    const store = new SessionStore(one, { ttlSeconds: 60 });
    const id = store.newId();
    await store.save(id, record(2));
    expect(await store.load(store.newId())).toBeUndefined();
    expect(await store.load('../not-an-id')).toBeUndefined();
    await new SessionStore(other, { ttlSeconds: 60 }).remove(id);
    expect(await store.load(id)).toBeUndefined();
  });

  it('renews a session once when two processes find it expiring at the same time', async () => {
    const stores = [new SessionStore(one, { ttlSeconds: 60 }), new SessionStore(other, { ttlSeconds: 60 })];
    const id = stores[0]!.newId();
    await stores[0]!.save(id, record(3));
    let renewals = 0;
    const renew = async (current: SessionRecord) => {
      renewals += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
      return { ...current, accessToken: 'access-token-4', refreshToken: 'refresh-token-4' };
    };
    const expiring = (current: SessionRecord) => current.accessToken === 'access-token-3';

    // Ten requests at once, half through each process, all finding the old token.
    const results = await Promise.all(Array.from({ length: 10 }, (_, n) => stores[n % 2]!.renewOnce(id, expiring, renew)));

    expect(renewals).toBe(1);
    expect(results.map((result) => result?.refreshToken)).toEqual(Array(10).fill('refresh-token-4'));
    expect((await stores[1]!.load(id))?.refreshToken).toBe('refresh-token-4');
  });

  it('ends the session when the renewal is refused, for every waiting process', async () => {
    const stores = [new SessionStore(one, { ttlSeconds: 60 }), new SessionStore(other, { ttlSeconds: 60 })];
    const id = stores[0]!.newId();
    await stores[0]!.save(id, record(5));
    const refused = async () => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return undefined;
    };
    const results = await Promise.all([stores[0]!.renewOnce(id, () => true, refused), stores[1]!.renewOnce(id, () => true, refused)]);
    expect(results).toEqual([undefined, undefined]);
    expect(await stores[0]!.load(id)).toBeUndefined();
  });

  it('gives every process the same development CSRF key, and the configured one where set', async () => {
    const [a, b] = await Promise.all([csrfSecretOf({}, one), csrfSecretOf({}, other)]);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(await csrfSecretOf({ WEB_CSRF_SECRET: 'k'.repeat(32) }, one)).toBe('k'.repeat(32));
  });
});
