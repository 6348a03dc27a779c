import express, { type Express, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { openRedis } from '@bedrequest/persistence';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { addressLimit, partyLimits, type PartyLimitOptions } from './rate-limit';

/**
 * The gateway's limits (issue 26, point 4), against the real Redis: a party's request rate is one
 * budget for every gateway process (kept in Redis, with the in-memory limit as insurance while Redis
 * is down); its requests and bytes in flight are bounded per process; the routes without a token are
 * limited per client address, except for the addresses configured as exempt.
 */
const env = testEnvironment();
const redisOf = (prefix: string) => openRedis({ REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: prefix }, silentLogger());

/** Stands in for requireToken: the party is named by the test's `x-party` header. */
const asParty: RequestHandler = (req, res, next) => {
  res.locals.principal = {
    partyId: String(req.headers['x-party'] ?? 'party-a'),
    role: 'referrer',
    ikNumbers: ['260000001'],
    fhirBase: 'https://x.example/fhir',
  };
  next();
};

function gatewayWith(limits: RequestHandler, handler: RequestHandler = (_req, res) => void res.json({ ok: true })): Express {
  return express().get('/limited', asParty, limits, handler).post('/limited', asParty, limits, handler);
}

const limits = (redis: Redis | undefined, overrides: Partial<PartyLimitOptions> = {}) =>
  partyLimits({ redis, requestsPerSecond: 10, concurrentRequests: 100, bytesInFlight: 64 * 2 ** 20, ...overrides });

describe('per-party limits of the gateway', () => {
  const clients: Redis[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
  });
  const client = (prefix: string) => {
    const redis = redisOf(prefix);
    clients.push(redis);
    return redis;
  };

  it('is one budget for two gateway processes: their rate limits share Redis', async () => {
    const prefix = `${env.redisKeyPrefix}${uniqueName('ratelimit')}:`;
    const [one, two] = [gatewayWith(limits(client(prefix))), gatewayWith(limits(client(prefix)))];
    await new Promise((resolve) => setTimeout(resolve, 200)); // both clients connected
    const answers = await Promise.all(Array.from({ length: 30 }, (_, index) => request(index % 2 ? one : two).get('/limited')));
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(20);
    expect(answers.find((answer) => answer.status === 429)?.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('keeps limiting in memory while Redis is down, and answers no 5xx', async () => {
    const unreachable = openRedis({ REDIS_URL: 'redis://127.0.0.1:1', REDIS_KEY_PREFIX: 'x:' }, silentLogger());
    clients.push(unreachable);
    const gateway = gatewayWith(limits(unreachable));
    const statuses = (await Promise.all(Array.from({ length: 30 }, () => request(gateway).get('/limited')))).map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status !== 200 && status !== 429)).toEqual([]);
  });

  it("bounds a party's requests in flight, and not another party's", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gateway = gatewayWith(limits(undefined, { requestsPerSecond: 1000, concurrentRequests: 3 }), async (_req, res) => {
      await released;
      res.json({ ok: true });
    });
    const server = gateway.listen(0, '127.0.0.1');
    try {
      const slow = Array.from({ length: 5 }, () => request(server).get('/limited').set('x-party', 'busy'));
      const pending = slow.map((call) => call.then((answer) => answer.status));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const other = request(server)
        .get('/limited')
        .set('x-party', 'calm')
        .then((answer) => answer.status);
      await new Promise((resolve) => setTimeout(resolve, 100));
      release();
      expect((await Promise.all(pending)).sort()).toEqual([200, 200, 200, 429, 429]);
      expect(await other).toBe(200);
      expect((await request(server).get('/limited').set('x-party', 'busy')).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it("bounds a party's request bytes in flight", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const gateway = gatewayWith(limits(undefined, { requestsPerSecond: 1000, bytesInFlight: 10 * 2 ** 20 }), async (req, res) => {
      req.resume();
      await released;
      res.json({ ok: true });
    });
    const server = gateway.listen(0, '127.0.0.1');
    try {
      const body = Buffer.alloc(6 * 2 ** 20, 'x');
      const first = request(server)
        .post('/limited')
        .set('content-type', 'application/octet-stream')
        .send(body)
        .then((answer) => answer.status);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const second = await request(server).post('/limited').set('content-type', 'application/octet-stream').send(body);
      release();
      expect([await first, second.status]).toEqual([200, 429]);
    } finally {
      server.close();
    }
  });
});

describe('the per-address limit of the routes without a token', () => {
  it('limits a client address, and lets the exempt addresses through', async () => {
    const redis = redisOf(`${env.redisKeyPrefix}${uniqueName('addresslimit')}:`);
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const open = (exempt: string[]) => express().get('/open', addressLimit({ redis, perSecond: 5, exempt }), (_req, res) => void res.json({ ok: true }));
      const limited = await Promise.all(Array.from({ length: 12 }, () => request(open([])).get('/open')));
      expect(limited.filter((answer) => answer.status === 200)).toHaveLength(5);
      expect(limited.filter((answer) => answer.status === 429)).toHaveLength(7);
      const exempt = await Promise.all(Array.from({ length: 12 }, () => request(open(['loopback'])).get('/open')));
      expect(exempt.every((answer) => answer.status === 200)).toBe(true);
    } finally {
      await redis.quit();
    }
  });
});
