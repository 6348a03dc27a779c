import { unwatchFile, watchFile } from 'node:fs';
import type { Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { checkTlsSettings, serverCertificate } from '@bedrequest/config';
import { closeServer, Lifecycle, trackResponses } from './lifecycle';
import { listen, probeRouter, type Readiness } from './http';
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
  // A CA bundle or certificate that cannot be read stops the start here, one line naming its variable.
  checkTlsSettings();
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
 *
 * With TLS_CERT_FILE and TLS_KEY_FILE set (@bedrequest/config, serverCertificate) it serves https
 * with that certificate, the service's own (docs/operations.md, "Encryption in transit"); a renewed
 * pair on disk (cert-manager rewrites the mounted Secret) is taken within a minute, for new connections.
 */
export async function serveHttp(context: ServiceContext, app: Express, options: { host: string; port: number; name?: string }): Promise<Serving> {
  const certificate = serverCertificate();
  const server = certificate ? await listenTls(app, options.port, options.host, certificate) : await listen(app, options.port, options.host);
  trackResponses(server);
  context.lifecycle.onStop(options.name ?? 'http', (remainingMs) => closeServer(server, remainingMs));
  if (certificate) context.lifecycle.onStop(`${options.name ?? 'http'} certificate`, renewCertificate(server, certificate.certFile, context.logger));
  const { port } = server.address() as AddressInfo;
  const host = ['0.0.0.0', '::', ''].includes(options.host) ? '127.0.0.1' : options.host;
  const url = `${certificate ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
  context.logger.info({ url }, `${options.name ?? 'http'} listening`);
  return { server, url };
}

/**
 * The service's internal port: its probes and metrics (probeRouter), the one port monitoring may
 * reach (docs/operations.md, "Metrics and probes"); `after` answers every other path, and errors.
 */
export function serveProbes(
  context: ServiceContext,
  options: { readiness: Readiness; host: string; port: number; after: (RequestHandler | ErrorRequestHandler)[] },
): Promise<Serving> {
  const probes = express()
    .disable('x-powered-by')
    .use(probeRouter({ registry: context.registry, lifecycle: context.lifecycle, readiness: options.readiness }))
    .use(...options.after);
  return serveHttp(context, probes, { host: options.host, port: options.port, name: 'internal http' });
}

/** Starts an https server for `app` and resolves with it once the port is bound. */
function listenTls(app: Express, port: number, host: string, certificate: { cert: string; key: string }): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = createHttpsServer({ cert: certificate.cert, key: certificate.key }, app);
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

/** Looks at the certificate file every minute and serves a changed pair from then on; the closer stops looking. */
function renewCertificate(server: Server, certFile: string, logger: Logger): () => Promise<void> {
  const secure = server as unknown as { setSecureContext(options: { cert: string; key: string }): void };
  const renew = () => {
    try {
      const renewed = serverCertificate();
      if (renewed) secure.setSecureContext({ cert: renewed.cert, key: renewed.key });
      logger.info({ certFile }, 'serving a renewed certificate');
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'the renewed certificate cannot be read: serving the one before');
    }
  };
  watchFile(certFile, { interval: 60_000, persistent: false }, renew);
  return async () => unwatchFile(certFile, renew);
}
