import request from 'supertest';
import pino from 'pino';
import { Registry } from 'prom-client';
import { captureLogger } from '@bedrequest/testing';
import { clientAddressOf, createServiceHttpApp, probeRouter } from './http';

function appWith(readiness: Record<string, () => boolean | Promise<boolean>>) {
  const registry = new Registry();
  const app = createServiceHttpApp({ logger: pino({ level: 'silent' }), registry, trustedProxies: [] });
  app.use(probeRouter({ registry, readiness }));
  app.get('/things/:id', (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

describe('service HTTP app', () => {
  it('is live regardless of its dependencies', async () => {
    await request(appWith({ broker: () => false }))
      .get('/health/live')
      .expect(200, { status: 'up' });
  });

  it('is ready only when every dependency is up, and says which one is down', async () => {
    await request(appWith({ broker: () => true, database: async () => true }))
      .get('/health/ready')
      .expect(200);
    const response = await request(appWith({ broker: () => true, database: async () => false })).get('/health/ready');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'down', checks: { broker: 'up', database: 'down' } });
  });

  it('exports readiness as the gauge service_ready, read when scraped', async () => {
    let databaseUp = true;
    const app = appWith({ broker: () => true, database: () => databaseUp });
    expect((await request(app).get('/metrics')).text).toMatch(/^service_ready 1$/m);
    databaseUp = false;
    expect((await request(app).get('/metrics')).text).toMatch(/^service_ready 0$/m);
  });

  it('treats a failing check as down', async () => {
    const failing = async () => {
      throw new Error('boom');
    };
    await request(appWith({ database: failing }))
      .get('/health/ready')
      .expect(503);
  });

  it('echoes a sane correlation id and replaces an unusable one', async () => {
    const app = appWith({});
    const kept = await request(app).get('/health/live').set('x-correlation-id', 'abc-123');
    expect(kept.headers['x-correlation-id']).toBe('abc-123');
    const replaced = await request(app).get('/health/live').set('x-correlation-id', 'bad value\twith tab');
    expect(replaced.headers['x-correlation-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs a 503 answer as one access line without a made-up error and its stack', async () => {
    const captured = captureLogger();
    const app = createServiceHttpApp({ logger: captured.logger, registry: new Registry(), trustedProxies: [] });
    app.get('/unavailable', (_req, res) => {
      res.status(503).json({ error: 'unavailable', message: 'the authentication service is unavailable; please retry' });
    });
    await request(app).get('/unavailable').expect(503);
    const [line, ...more] = captured.text().trim().split('\n');
    expect(more).toEqual([]);
    expect(JSON.parse(line!)).toMatchObject({ msg: 'request errored', res: { statusCode: 503 } });
    expect(JSON.parse(line!)).not.toHaveProperty('err');
    expect(captured.text()).not.toContain('stack');
  });

  it("logs no access line for a polled path's successful answers, but its refusals, and every other path's", async () => {
    const captured = captureLogger();
    const app = createServiceHttpApp({ logger: captured.logger, registry: new Registry(), trustedProxies: [], polledPaths: ['/internal/list'] });
    app.get(['/internal/list', '/internal/other'], (req, res) => {
      if (req.headers.authorization) res.status(403).json({ error: 'forbidden' });
      else res.json({ items: [] });
    });
    await request(app).get('/internal/list').expect(200);
    await request(app).get('/internal/list?since=1').expect(200);
    await request(app).get('/internal/list').set('authorization', 'Bearer x').expect(403);
    await request(app).get('/internal/other').expect(200);
    const lines = captured
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { req: { url: string } });
    expect(lines.map((line) => line.req.url)).toEqual(['/internal/list', '/internal/other']);
  });

  it('counts requests by route pattern on /metrics', async () => {
    const app = appWith({});
    await request(app).get('/things/1').expect(200);
    await request(app).get('/things/2').expect(200);
    const metrics = await request(app).get('/metrics').expect(200);
    expect(metrics.text).toContain('http_requests_total{method="GET",route="/things/:id",status="200"} 2');
  });
});

describe('the client address (TRUSTED_PROXIES)', () => {
  /** What the service reads as the client's address, for a request from this process over loopback. */
  async function addressSeen(trustedProxies: string[], forwardedFor?: string): Promise<string> {
    const app = createServiceHttpApp({ logger: pino({ level: 'silent' }), registry: new Registry(), trustedProxies });
    app.get('/whoami', (req, res) => {
      res.json({ address: clientAddressOf(req) });
    });
    const call = request(app).get('/whoami');
    const response = await (forwardedFor === undefined ? call : call.set('x-forwarded-for', forwardedFor));
    return (response.body as { address: string }).address;
  }
  const LOOPBACK = /^(::ffff:)?127\.0\.0\.1$|^::1$/;

  it('is the socket peer when no proxy is trusted, whatever X-Forwarded-For claims', async () => {
    expect(await addressSeen([])).toMatch(LOOPBACK);
    expect(await addressSeen([], '203.0.113.9')).toMatch(LOOPBACK);
  });

  it('is the socket peer when that peer is not a trusted proxy', async () => {
    expect(await addressSeen(['10.0.0.0/8'], '203.0.113.9')).toMatch(LOOPBACK);
  });

  it('is the right-most X-Forwarded-For entry that is not trusted, from a trusted peer', async () => {
    expect(await addressSeen(['loopback'], '198.51.100.1, 203.0.113.9')).toBe('203.0.113.9');
    expect(await addressSeen(['loopback', '203.0.113.0/24'], '198.51.100.1, 203.0.113.9')).toBe('198.51.100.1');
  });

  it('is the trusted peer itself when it forwards nothing', async () => {
    expect(await addressSeen(['loopback'])).toMatch(LOOPBACK);
  });
});
