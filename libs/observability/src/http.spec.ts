import request from 'supertest';
import pino from 'pino';
import { Registry } from 'prom-client';
import { captureLogger } from '@bedrequest/testing';
import { createServiceHttpApp, probeRouter } from './http';

function appWith(readiness: Record<string, () => boolean | Promise<boolean>>) {
  const registry = new Registry();
  const app = createServiceHttpApp({ logger: pino({ level: 'silent' }), registry });
  app.use(probeRouter({ registry, readiness }));
  app.get('/things/:id', (_req, res) => {
    res.json({ ok: true });
  });
  return app;
}

describe('service HTTP app', () => {
  it('is live regardless of its dependencies', async () => {
    await request(appWith({ broker: () => false })).get('/health/live').expect(200, { status: 'up' });
  });

  it('is ready only when every dependency is up, and says which one is down', async () => {
    await request(appWith({ broker: () => true, database: async () => true })).get('/health/ready').expect(200);
    const response = await request(appWith({ broker: () => true, database: async () => false })).get('/health/ready');
    expect(response.status).toBe(503);
    expect(response.body).toEqual({ status: 'down', checks: { broker: 'up', database: 'down' } });
  });

  it('treats a failing check as down', async () => {
    const failing = async () => {
      throw new Error('boom');
    };
    await request(appWith({ database: failing })).get('/health/ready').expect(503);
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
    const app = createServiceHttpApp({ logger: captured.logger, registry: new Registry() });
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

  it('counts requests by route pattern on /metrics', async () => {
    const app = appWith({});
    await request(app).get('/things/1').expect(200);
    await request(app).get('/things/2').expect(200);
    const metrics = await request(app).get('/metrics').expect(200);
    expect(metrics.text).toContain('http_requests_total{method="GET",route="/things/:id",status="200"} 2');
  });
});
