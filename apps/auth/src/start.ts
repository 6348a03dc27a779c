import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { Lifecycle, closeServer, createLogger, createMetricsRegistry, createServiceHttpApp, listen } from '@bedrequest/observability';
import type { AuthConfig } from './config';
import { tokenStatusRouter } from './token/token-status.router';

export interface RunningAuth {
  readonly server: Server;
  stop(): Promise<void>;
}

export async function startAuth(config: AuthConfig): Promise<RunningAuth> {
  const logger = createLogger('auth', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  const registry = createMetricsRegistry('auth');

  const redis = new Redis(config.REDIS_URL, {
    keyPrefix: config.REDIS_KEY_PREFIX,
    // Commands fail fast while Redis is down instead of queueing without bound; the caller answers 503.
    maxRetriesPerRequest: 1,
    enableOfflineQueue: false,
    retryStrategy: (attempt) => Math.min(attempt * 200, 5_000),
  });
  redis.on('error', (error) => logger.warn({ err: error.message }, 'redis unavailable'));
  lifecycle.onStop('redis', () => redis.quit().catch(() => redis.disconnect()));

  const app = createServiceHttpApp({ logger, registry, readiness: { redis: () => redis.status === 'ready' } });
  app.use('/api/v1/token', tokenStatusRouter());

  const server = await listen(app, config.AUTH_PORT, config.HOST);
  lifecycle.onStop('http', () => closeServer(server));
  logger.info({ port: config.AUTH_PORT }, 'auth listening');
  return { server, stop: () => lifecycle.stop() };
}
