import express, { type Express, type RequestHandler } from 'express';
import type { Redis } from 'ioredis';
import request from 'supertest';
import { openRedis } from '@bedrequest/persistence';
import { silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { errorHandler } from './http-errors';
import { jsonBody } from './json-body';
import { addressLimit } from './address-limits';
import { partyLimits, type PartyLimitOptions } from './rate-limit';

/**
 * The gateway's limits (docs/api.md, "Errors"; docs/operations.md, "Limits per client address"),
 * against the real Redis: a party's request rate and its request bytes per second are each one
 * budget for every gateway process (kept in Redis, with the in-memory limit as insurance while
 * Redis is down); its requests and bytes in flight are bounded per process; the routes without a
 * token are limited per client address, except for the addresses configured as exempt.
 */
const env = testEnvironment();
const redisOf = (prefix: string) => openRedis({ REDIS_URL: env.redisUrl, REDIS_KEY_PREFIX: prefix }, silentLogger());
/**
 * Until a client is connected the limits answer from memory (the insurance), one budget per process:
 * the tests of the shared budget start once every client is (an event, not a sleep).
 */
const connected = (...clients: Redis[]) => waitFor(() => clients.every((redis) => redis.status === 'ready'), { what: 'the Redis clients connected' });

/** Stands in for requireToken: the party is named by the test's `x-party` header. */
const asParty: RequestHandler = (req, res, next) => {
  const partyId = String(req.headers['x-party'] ?? 'party-a');
  res.locals.principal = {
    partyId,
    userId: `${partyId}-person`,
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
  partyLimits({
    redis,
    requestsPerSecond: 10,
    concurrentRequests: 100,
    bytesInFlight: 64 * 2 ** 20,
    bytesPerSecond: 64 * 2 ** 20,
    refusalHoldMs: 0,
    ...overrides,
  });

const MiB = 2 ** 20;
const octets = (bytes: number) => Buffer.alloc(bytes, 'x');
/** A JSON body of about `bytes`, as a stream: sent without Content-Length (chunked). */
const chunkedJson = (bytes: number) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(Buffer.from('{"pad":"'));
      for (let sent = 0; sent < bytes; sent += MiB) controller.enqueue(Buffer.alloc(Math.min(MiB, bytes - sent), 'x'));
      controller.enqueue(Buffer.from('"}'));
      controller.close();
    },
  });

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
    const [first, second] = [client(prefix), client(prefix)];
    const [one, two] = [gatewayWith(limits(first)), gatewayWith(limits(second))];
    await connected(first, second);
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
    let entered = 0;
    const gateway = gatewayWith(limits(undefined, { requestsPerSecond: 1000, concurrentRequests: 3 }), async (req, res) => {
      if (req.headers['x-party'] === 'busy') {
        entered += 1;
        await released;
      }
      res.json({ ok: true });
    });
    const server = gateway.listen(0, '127.0.0.1');
    try {
      const answered: number[] = [];
      const slow = Array.from({ length: 5 }, () => request(server).get('/limited').set('x-party', 'busy'));
      const pending = slow.map((call) => call.then((answer) => (answered.push(answer.status), answer.status)));
      // Three taken and held by the handler, two refused: every one of the five has arrived.
      await waitFor(() => entered === 3 && answered.length === 2, { what: 'three busy requests held and two refused' });
      // Another party is served while the busy one holds its three.
      expect((await request(server).get('/limited').set('x-party', 'calm')).status).toBe(200);
      release();
      expect((await Promise.all(pending)).sort()).toEqual([200, 200, 200, 429, 429]);
      expect(entered).toBe(3);
      expect((await request(server).get('/limited').set('x-party', 'busy')).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it("bounds a party's request bytes in flight", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const firstTaken = new Promise<void>((resolve) => (entered = resolve));
    const gateway = gatewayWith(limits(undefined, { requestsPerSecond: 1000, bytesInFlight: 10 * 2 ** 20 }), async (req, res) => {
      req.resume();
      entered();
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
      await firstTaken; // its 6 MiB counted in flight
      const second = await request(server).post('/limited').set('content-type', 'application/octet-stream').send(body);
      release();
      expect([await first, second.status]).toEqual([200, 429]);
    } finally {
      server.close();
    }
  });

  it("refuses a party's body once its bytes per second are spent, over all processes, before reading it; refused bodies count too", async () => {
    const prefix = `${env.redisKeyPrefix}${uniqueName('bytelimit')}:`;
    let read = 0;
    const reader: RequestHandler = (req, res) => {
      read += 1;
      req.resume().on('end', () => res.json({ ok: true }));
    };
    // 1 MiB per second, counted over 10 s: 10 MiB of bodies per window.
    const budget = { requestsPerSecond: 1000, bytesPerSecond: MiB };
    const [first, second] = [client(prefix), client(prefix)];
    const [one, two] = [gatewayWith(limits(first, budget), reader), gatewayWith(limits(second, budget), reader)];
    await connected(first, second);
    const post = (gateway: Express, party: string, bytes: number) =>
      request(gateway).post('/limited').set('x-party', party).set('content-type', 'application/octet-stream').send(octets(bytes));

    expect((await post(one, 'heavy', 4 * MiB)).status).toBe(200);
    expect((await post(two, 'heavy', 4 * MiB)).status).toBe(200);
    const refused = await post(one, 'heavy', 4 * MiB);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: 'too_many_requests', message: expect.stringContaining('bytes of request bodies per second') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(10);
    expect(read).toBe(2);
    // The refused 4 MiB arrived all the same: 12 of 10 MiB, so even a small body waits for the next window.
    expect((await post(two, 'heavy', 1024)).status).toBe(429);
    // Requests without a body, and another party's bodies, are not held back by it.
    expect((await request(one).get('/limited').set('x-party', 'heavy')).status).toBe(200);
    expect((await post(two, 'light', 4 * MiB)).status).toBe(200);
  });

  it('refuses a party over its rate or its byte budget from memory until the window ends, without asking Redis each time', async () => {
    const redis = client(`${env.redisKeyPrefix}${uniqueName('blocked')}:`);
    const gateway = gatewayWith(limits(redis, { requestsPerSecond: 3, bytesPerSecond: MiB }));
    await connected(redis);
    const sent = jest.spyOn(redis, 'sendCommand');
    const asked = (key: string) => sent.mock.calls.filter(([command]) => command.args.some((arg) => String(arg).includes(key))).length;
    try {
      // Over the rate: every request refused after the first refusal is answered without Redis; a
      // request that comes after the window ended (a slow machine) asks again.
      const statuses: number[] = [];
      while (!statuses.includes(429)) statuses.push((await request(gateway).get('/limited')).status);
      const askedBefore = asked('gateway:rate:party');
      const after: number[] = [];
      for (let n = 0; n < 10; n++) after.push((await request(gateway).get('/limited')).status);
      expect(asked('gateway:rate:party') - askedBefore).toBe(after.filter((status) => status !== 429).length);
      expect(after.filter((status) => status === 429).length).toBeGreaterThan(0);

      // Over the byte budget (10 s windows): the bodies after the refusal are refused without asking Redis for bytes.
      const post = (bytes: number) => request(gateway).post('/limited').set('content-type', 'application/octet-stream').send(octets(bytes));
      await new Promise((resolve) => setTimeout(resolve, 1_100)); // a new second for the rate
      expect((await post(8 * MiB)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await post(4 * MiB)).status).toBe(429);
      const bytesAskedBefore = asked('gateway:bytes:party');
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      expect((await post(1024)).status).toBe(429);
      expect(asked('gateway:bytes:party')).toBe(bytesAskedBefore);
    } finally {
      sent.mockRestore();
    }
  });

  it('leaves a body larger than a whole window of the budget to the size limit of its route (413, not 429)', async () => {
    const gateway = express().post(
      '/limited',
      asParty,
      limits(undefined, { requestsPerSecond: 1000, bytesPerSecond: MiB }),
      ...jsonBody({ limit: 10 * MiB }),
      (_req, res) => void res.json({ ok: true }),
    );
    const answer = await request(gateway)
      .post('/limited')
      .set('content-type', 'application/json')
      .send(`{"pad":"${'x'.repeat(11 * MiB)}"}`);
    expect(answer.status).toBe(413);
  });

  /** A gateway on a port, and a timed GET of `/limited` as a party (fetch: supertest would close the server after each call). */
  const served = async (gateway: Express) => {
    const server = gateway.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/limited`;
    const timed = async (party = 'party-a', signal?: AbortSignal) => {
      const started = performance.now();
      const answer = await fetch(url, { headers: { 'x-party': party }, ...(signal ? { signal } : {}) });
      const body = (await answer.json()) as { message?: string };
      return {
        status: answer.status,
        retryAfter: answer.headers.get('retry-after'),
        message: body.message,
        sentAt: started,
        ms: performance.now() - started,
        at: performance.now(),
      };
    };
    return { server, timed };
  };
  /**
   * `limit`, counting the requests that reached it. It takes a request into the party's count (in
   * flight, or a held refusal) in the same turn, before its first await: once the count says a
   * request arrived, the limit has counted it.
   */
  const arrivalsAt = (limit: RequestHandler) => {
    const arrivals = { count: 0 };
    const handler: RequestHandler = (req, res, next) => {
      arrivals.count += 1;
      return limit(req, res, next);
    };
    return { handler, arrived: (count: number) => waitFor(() => arrivals.count >= count, { what: `${count} requests at the limit` }) };
  };

  it('holds a refusal over the rate until the party could be served again, as one of its requests in flight', async () => {
    const limit = arrivalsAt(limits(undefined, { requestsPerSecond: 1, concurrentRequests: 1, refusalHoldMs: 1_000 }));
    const { server, timed } = await served(gatewayWith(limit.handler));
    try {
      const first = await timed();
      expect(first.status).toBe(200);
      // Over the rate (1 a second): held until the window the first request opened ends.
      const overRate = timed();
      await limit.arrived(2);
      // Meanwhile the held refusal is the party's one request in flight.
      const atOnce = timed();
      expect(await overRate).toMatchObject({ status: 429, retryAfter: '1', message: expect.stringContaining('requests per second') });
      // Not answered before the window's end: it opened when the first request arrived, after it
      // was sent. A busy machine only makes it later. (The margin: a timer counts from the start of
      // the event loop's turn that set it, which can be a little before the call.)
      expect((await overRate).at - first.sentAt).toBeGreaterThanOrEqual(1_000 - 50);
      expect(await atOnce).toMatchObject({ status: 429, message: expect.stringContaining('requests of the party at once') });
    } finally {
      server.close();
    }
  });

  it('holds a refusal of requests at once for the whole hold, leaves other parties alone, and forgets a caller that went away', async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const busy = new Promise<void>((resolve) => (entered = resolve));
    const limit = arrivalsAt(limits(undefined, { requestsPerSecond: 1000, concurrentRequests: 1, refusalHoldMs: 1_000 }));
    const { server, timed } = await served(
      gatewayWith(limit.handler, async (req, res) => {
        if (req.headers['x-party'] === 'party-a') {
          entered();
          await released;
        }
        res.json({ ok: true });
      }),
    );
    try {
      const first = timed();
      await busy;
      const refused = timed();
      const other = await timed('party-b');
      // A caller that goes away while held is not answered; its place is freed (the last call below).
      const gone = new AbortController();
      const abandoned = timed('party-a', gone.signal).catch(() => 'aborted');
      await limit.arrived(4); // first, refused, other's, and this one: held
      gone.abort();
      expect(await abandoned).toBe('aborted');
      expect(await refused).toMatchObject({ status: 429, retryAfter: '1', message: expect.stringContaining('requests of the party at once') });
      expect((await refused).ms).toBeGreaterThanOrEqual(900);
      expect(other.status).toBe(200);
      expect(other.at).toBeLessThan((await refused).at);
      release();
      expect((await first).status).toBe(200);
      expect((await timed()).status).toBe(200);
    } finally {
      server.close();
    }
  });

  it('charges a JSON body sent without a length as it is read, and refuses it before parsing once it takes more than the party has left', async () => {
    let parsed = 0;
    const handler: RequestHandler = (_req, res) => {
      parsed += 1;
      res.json({ ok: true });
    };
    const redis = client(`${env.redisKeyPrefix}${uniqueName('chunked')}:`);
    const gateway = express().post(
      '/limited',
      asParty,
      limits(redis, { requestsPerSecond: 1000, bytesPerSecond: MiB }),
      ...jsonBody({ limit: 10 * MiB }),
      handler,
      errorHandler(silentLogger()),
    );
    const server = gateway.listen(0, '127.0.0.1');
    try {
      await connected(redis);
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/limited`;
      const postChunked = (bytes: number) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chunkedJson(bytes), duplex: 'half' } as RequestInit).then(
          async (response) => ({ status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as unknown }),
        );
      expect((await postChunked(6 * MiB)).status).toBe(200);
      const refused = await postChunked(6 * MiB);
      expect(refused).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^\d+$/), body: { error: 'too_many_requests' } });
      expect(parsed).toBe(1);
      // Both arrived: 12 of 10 MiB, so the next body, with a length or without, is refused on arrival.
      expect((await request(server).post('/limited').set('content-type', 'application/json').send('{"small":true}')).status).toBe(429);
      expect((await postChunked(10)).status).toBe(429);
    } finally {
      server.close();
    }
  });
});

describe('the per-address limit of the routes without a token', () => {
  it('limits a client address, and lets the exempt addresses through', async () => {
    const redis = redisOf(`${env.redisKeyPrefix}${uniqueName('addresslimit')}:`);
    try {
      await connected(redis);
      const open = (exempt: string[], refusalHoldMs = 0) =>
        express().get('/open', addressLimit({ redis, bucket: 'documents', perSecond: 5, exempt, refusalHoldMs }), (_req, res) => void res.json({ ok: true }));
      const limited = await Promise.all(Array.from({ length: 12 }, () => request(open([])).get('/open')));
      expect(limited.filter((answer) => answer.status === 200)).toHaveLength(5);
      expect(limited.filter((answer) => answer.status === 429)).toHaveLength(7);
      const exempt = await Promise.all(Array.from({ length: 12 }, () => request(open(['loopback'])).get('/open')));
      expect(exempt.every((answer) => answer.status === 200)).toBe(true);
      // Its refusals are held as a party's are: the one over the limit until the window ends.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const held = await Promise.all(
        Array.from({ length: 6 }, () => {
          const started = performance.now();
          return request(open([], 1_000))
            .get('/open')
            .then((answer) => ({ status: answer.status, retryAfter: answer.headers['retry-after'], ms: performance.now() - started }));
        }),
      );
      expect(held.filter((answer) => answer.status === 200)).toHaveLength(5);
      expect(held.filter((answer) => answer.status === 429)).toEqual([{ status: 429, retryAfter: '1', ms: expect.any(Number) }]);
      const refusal = held.find((answer) => answer.status === 429)!;
      expect(refusal.ms).toBeGreaterThan(Math.max(...held.filter((answer) => answer.status === 200).map((answer) => answer.ms)));
    } finally {
      await redis.quit();
    }
  });
});
