import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { closeServer, Lifecycle, trackResponses } from './lifecycle';
import { listen } from './http';
import { createLogger } from './logger';
import { createMetricsRegistry } from './metrics';
import { startTracing } from './tracing';

/** What every service starts with: its logger, its metrics and the lifecycle that stops what it starts. */
export interface ServiceContext {
  readonly logger: Logger;
  readonly registry: Registry;
  readonly lifecycle: Lifecycle;
}

/** A started service: what its start returned, and `stop`, which closes everything it opened, in reverse. */
export type Started<T> = T & { stop(): Promise<void> };

/**
 * The one start-up of a service: creates its logger, tracing (when `OTEL_TRACES_EXPORTER` asks for
 * it: tracing.ts), metrics registry and lifecycle, runs `start`,
 * and returns what it returned with `stop`. Everything `start` registers with `lifecycle.onStop` is
 * closed again when the service stops and also when `start` fails half-way, so that a failed start
 * (a test, a restart loop) leaves nothing running.
 */
export async function startService<T extends object>(
  name: string,
  options: {
    logLevel: string;
    /** `SHUTDOWN_TIMEOUT_MS`: how long `stop` may take to finish or hand back the work the service holds. */
    shutdownTimeoutMs?: number;
  },
  start: (context: ServiceContext) => Promise<T>,
): Promise<Started<T>> {
  const logger = createLogger(name, options.logLevel);
  const lifecycle = new Lifecycle(logger, options.shutdownTimeoutMs);
  try {
    // First registered, so closed last: the spans of the stop itself are exported too.
    const tracing = startTracing(name, logger);
    if (tracing) lifecycle.onStop('tracing', () => tracing.shutdown());
    const started = await start({ logger, registry: createMetricsRegistry(name), lifecycle });
    return Object.assign(started, { stop: () => lifecycle.stop() });
  } catch (error) {
    await lifecycle.stop();
    throw error;
  }
}

/** A listening HTTP server and the URL it is reached at (port 0 picks a free one). */
export interface Serving {
  readonly server: Server;
  readonly url: string;
}

/**
 * Starts `app` on `host:port`, closes it first when the service stops (open requests finish, keep-alive
 * clients are told to go elsewhere: see closeServer), and logs the address. The URL names 127.0.0.1
 * when the server listens on every address.
 */
export async function serveHttp(context: ServiceContext, app: Express, options: { host: string; port: number; name?: string }): Promise<Serving> {
  const server = await listen(app, options.port, options.host);
  trackResponses(server);
  context.lifecycle.onStop(options.name ?? 'http', (remainingMs) => closeServer(server, remainingMs));
  const { port } = server.address() as AddressInfo;
  const host = ['0.0.0.0', '::', ''].includes(options.host) ? '127.0.0.1' : options.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  context.logger.info({ url }, `${options.name ?? 'http'} listening`);
  return { server, url };
}
