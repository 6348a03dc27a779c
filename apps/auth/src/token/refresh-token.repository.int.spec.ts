import { randomBytes } from 'node:crypto';
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
    await sut.startFamily(token, 'user-1');

    const keys = await redis.keys(`${keyPrefix}*`);
    expect(keys.join(' ')).not.toContain(token);
    const tokenKey = keys.find((key) => key.includes(':auth:refresh:token:'))!.slice(keyPrefix.length);
    expect(await redis.ttl(tokenKey)).toBeGreaterThan(590);
    expect(await redis.hgetall(tokenKey)).toEqual({ userId: 'user-1', familyId: expect.any(String), state: 'active' });
  });

  it('rotates a token exactly once among many concurrent attempts', async () => {
    const token = newToken();
    await sut.startFamily(token, 'user-2');
    const record = (await sut.find(token))!;

    const outcomes = await Promise.all(Array.from({ length: 20 }, () => sut.rotate(token, newToken(), record)));

    expect(outcomes.filter((outcome) => outcome === 'rotated')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'reused')).toHaveLength(19);
  });

  it('reports "revoked" for a token of a revoked family and "unknown" for a token never issued', async () => {
    const token = newToken();
    await sut.startFamily(token, 'user-3');
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
