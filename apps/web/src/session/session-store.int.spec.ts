import { createHash } from 'node:crypto';
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

  const record = (n: number, at = Date.now()): SessionRecord => ({
    accessToken: `access-token-${n}`,
    refreshToken: `refresh-token-${n}`,
    principal: { partyId: 'user-1', role: 'clinic', ikNumbers: ['510000001'] },
    createdAt: at,
    lastSeenAt: at,
  });
  /** The session's key in Redis, where the store keeps it under a hash of its id. */
  const keyOf = (id: string) => `${prefix}web:session:${createHash('sha256').update(id).digest('base64url')}`;

  it('serves a session saved by one process to another, and keeps neither its id nor its tokens readable in Redis', async () => {
    const first = new SessionStore(one);
    const id = first.newId();
    const saved = record(1);
    await first.save(id, saved);

    expect(await new SessionStore(other).load(id)).toEqual(saved);
    const keys = await raw.keys(`${prefix}web:session:*`);
    expect(keys).toHaveLength(1);
    expect(keys[0]).not.toContain(id);
    const stored = (await raw.getBuffer(keys[0]!))!;
    expect(stored.toString('latin1')).not.toMatch(/token|user-1|510000001/);
    // Kept until it ends unused: 12 hours by default.
    expect(await raw.pttl(keys[0]!)).toBeGreaterThan(12 * 3600_000 - 60_000);
    expect(await raw.pttl(keys[0]!)).toBeLessThanOrEqual(12 * 3600_000);
  });

  it('opens no session for an unknown, malformed or removed id', async () => {
    const store = new SessionStore(one);
    const id = store.newId();
    await store.save(id, record(2));
    expect(await store.load(store.newId())).toBeUndefined();
    expect(await store.load('../not-an-id')).toBeUndefined();
    await new SessionStore(other).remove(id);
    expect(await store.load(id)).toBeUndefined();
  });

  it('renews a session once when two processes find it expiring at the same time', async () => {
    const stores = [new SessionStore(one), new SessionStore(other)];
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
    const stores = [new SessionStore(one), new SessionStore(other)];
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

  it('ends a session idleSeconds after its last use and lifetimeSeconds after its login, whichever comes first, and Redis keeps it no longer', async () => {
    let now = Date.UTC(2026, 10, 2, 8);
    const store = new SessionStore(one, { idleSeconds: 100, lifetimeSeconds: 1_000, now: () => now });
    const later = new SessionStore(other, { idleSeconds: 100, lifetimeSeconds: 1_000, now: () => now });
    const id = store.newId();
    const created = await store.create(id, { accessToken: 'a', refreshToken: 'r', principal: record(0).principal });
    expect(created).toMatchObject({ createdAt: now, lastSeenAt: now });
    expect(await raw.pttl(keyOf(id))).toBeGreaterThan(99_000);

    // Used every 99 s, it outlives its first 100 s, Redis keeping it 100 s past each use.
    for (let use = 0; use < 2; use += 1) {
      now += 99_000;
      expect(await later.load(id, { used: true })).toMatchObject({ lastSeenAt: now });
      expect(await raw.pttl(keyOf(id))).toBeGreaterThan(99_000);
    }
    // Read without a use (the live list's polling), the idle time runs on: past it, the session is gone.
    now += 99_000;
    expect(await later.load(id)).toMatchObject({ lastSeenAt: now - 99_000 });
    now += 2_000;
    expect(await later.load(id)).toBeUndefined();
    expect(await raw.exists(keyOf(id))).toBe(0);

    // Used without a pause, it ends at its lifetime all the same; Redis keeps it only until then.
    const start = now;
    const busy = store.newId();
    await store.create(busy, { accessToken: 'a', refreshToken: 'r', principal: record(0).principal });
    for (now = start + 90_000; now < start + 1_000_000; now += 90_000) expect(await later.load(busy, { used: true })).toBeDefined();
    now = start + 990_000;
    expect(await later.load(busy, { used: true })).toBeDefined();
    expect(await raw.pttl(keyOf(busy))).toBeLessThanOrEqual(10_000);
    now = start + 1_000_000;
    expect(await later.load(busy, { used: true })).toBeUndefined();
    expect(await raw.exists(keyOf(busy))).toBe(0);
  });

  it('never lets a use overwrite a renewal stored meanwhile', async () => {
    const stores = [new SessionStore(one), new SessionStore(other)];
    const id = stores[0]!.newId();
    await stores[0]!.save(id, record(6));
    let renewing = true;
    // Uses through both processes while one renews: each reads the session and writes it back used.
    const uses = Array.from({ length: 8 }, async (_, n) => {
      while (renewing) await stores[n % 2]!.load(id, { used: true });
    });
    const renew = async (current: SessionRecord) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { ...current, accessToken: 'access-token-7', refreshToken: 'refresh-token-7' };
    };
    await stores[0]!.renewOnce(id, () => true, renew);
    await new Promise((resolve) => setTimeout(resolve, 50));
    renewing = false;
    await Promise.all(uses);
    expect((await stores[1]!.load(id))?.refreshToken).toBe('refresh-token-7');
  });

  it('gives every process the same development CSRF key, and the configured one where set', async () => {
    const [a, b] = await Promise.all([csrfSecretOf({}, one), csrfSecretOf({}, other)]);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(await csrfSecretOf({ WEB_CSRF_SECRET: 'k'.repeat(32) }, one)).toBe('k'.repeat(32));
  });
  it("keeps a value beside a session, sealed under its id, for its time; another session's id reads nothing", async () => {
    const store = new SessionStore(one);
    const id = store.newId();
    await store.keep(id, 'answer-draft:task-1', { note: 'Frau Muster, Zimmer 12' }, 60);

    expect(await new SessionStore(other).kept(id, 'answer-draft:task-1')).toEqual({ note: 'Frau Muster, Zimmer 12' });
    expect(await store.kept(store.newId(), 'answer-draft:task-1')).toBeUndefined();
    expect(await store.kept(id, 'answer-draft:task-2')).toBeUndefined();
    const [key] = await raw.keys(`${keyOf(id)}:kept:*`);
    expect(key).not.toContain('task-1');
    expect((await raw.getBuffer(key!))!.toString('latin1')).not.toContain('Muster');
    expect(await raw.ttl(key!)).toBeGreaterThan(50);
    await store.forget(id, 'answer-draft:task-1');
    expect(await store.kept(id, 'answer-draft:task-1')).toBeUndefined();
  });
});
