import { createHash, randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { TcpProxy, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { StoreUnavailableError } from '../errors';
import { RefreshTokenRepository } from './refresh-token.repository';

const env = testEnvironment();
const newToken = () => randomBytes(32).toString('base64url');

describe('RefreshTokenRepository against the real Redis', () => {
  const keyPrefix = `${env.redisKeyPrefix}${uniqueName('refresh')}:`;
  let redis: Redis;
  let sut: RefreshTokenRepository;

  beforeAll(() => {
    redis = new Redis(env.redisUrl, { keyPrefix });
    sut = new RefreshTokenRepository(redis, 600, 3600);
  });
  afterAll(() => redis.quit());

  it('stores only a hash of the token, under the key prefix, with its lifetime', async () => {
    const token = newToken();
    await sut.startFamily(token, 'user-1', 1_767_225_600_123);

    const keys = await redis.keys(`${keyPrefix}*`);
    expect(keys.join(' ')).not.toContain(token);
    const tokenKey = keys.find((key) => key.includes(':auth:refresh:token:'))!.slice(keyPrefix.length);
    expect(await redis.ttl(tokenKey)).toBeGreaterThan(590);
    expect(await redis.hgetall(tokenKey)).toEqual({ userId: 'user-1', familyId: expect.any(String), loginAt: '1767225600123', state: 'active' });
  });

  it("hands the login's time on to every successor, and knows none for a token stored without it", async () => {
    const token = newToken();
    await sut.startFamily(token, 'user-4', 1_767_225_600_123);
    const record = (await sut.find(token))!;
    expect(record.loginAtMs).toBe(1_767_225_600_123);
    const successor = newToken();
    await expect(sut.rotate(token, successor, record)).resolves.toBe('rotated');
    expect(await sut.find(successor)).toEqual({ ...record, loginAtMs: 1_767_225_600_123 });

    // As auth stored them before it kept the login's time.
    const earlier = newToken();
    await sut.startFamily(earlier, 'user-5', Date.now());
    await redis.hdel(`auth:refresh:token:${createHash('sha256').update(earlier).digest('hex')}`, 'loginAt');
    const old = (await sut.find(earlier))!;
    expect(old.loginAtMs).toBeUndefined();
    const next = newToken();
    await expect(sut.rotate(earlier, next, old)).resolves.toBe('rotated');
    expect((await sut.find(next))!.loginAtMs).toBeUndefined();
  });

  it('rotates a token exactly once among many concurrent attempts', async () => {
    const token = newToken();
    await sut.startFamily(token, 'user-2', Date.now());
    const record = (await sut.find(token))!;

    const outcomes = await Promise.all(Array.from({ length: 20 }, () => sut.rotate(token, newToken(), record)));

    expect(outcomes.filter((outcome) => outcome === 'rotated')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'reused')).toHaveLength(19);
  });

  it('reports "revoked" for a token of a revoked family and "unknown" for a token never issued', async () => {
    const token = newToken();
    await sut.startFamily(token, 'user-3', Date.now());
    const record = (await sut.find(token))!;
    await sut.revokeFamily(record.familyId);

    await expect(sut.rotate(token, newToken(), record)).resolves.toBe('revoked');
    await expect(sut.rotate(newToken(), newToken(), record)).resolves.toBe('unknown');
  });

  it('turns a Redis outage into StoreUnavailableError', async () => {
    const target = new URL(env.redisUrl);
    const proxy = new TcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    target.port = String(await proxy.start());
    const client = new Redis(target.toString(), { keyPrefix, maxRetriesPerRequest: 1, enableOfflineQueue: false });
    try {
      await waitFor(() => client.status === 'ready', { what: 'redis connection' });
      proxy.cut();
      await waitFor(() => client.status !== 'ready', { what: 'redis connection lost' });

      await expect(new RefreshTokenRepository(client, 600, 3600).find(newToken())).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      // Reconnected first: disconnecting a client that is still reconnecting leaves a 2 s timer behind.
      proxy.restore();
      await waitFor(() => client.status === 'ready', { what: 'redis connection back' });
      await client.quit();
      await proxy.stop();
    }
  });
});
