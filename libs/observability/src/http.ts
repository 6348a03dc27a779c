import type { Server } from 'node:http';
import express, { Router, type Express, type Request } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from 'pino';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { CORRELATION_HEADER, correlationIdFrom } from './correlation';
import type { Lifecycle } from './lifecycle';

/** A named check of one dependency: true when its connection is up. */
export type Readiness = Record<string, () => boolean | Promise<boolean>>;

export interface ServiceHttpOptions {
  logger: Logger;
  registry: Registry;
  /** `TRUSTED_PROXIES` (libs/config): whose `X-Forwarded-For` is believed; see clientAddressOf. */
  trustedProxies: readonly string[];
  /** Paths other services poll every second or so (auth's revocation list): their successful answers are counted in the metrics, not logged. */
  polledPaths?: readonly string[];
}

/**
 * The HTTP app every service starts from: correlation ids, access logs without bodies, request
 * metrics, and the one rule for the client's address. Services add their routes, and the probes
 * (probeRouter) where their port is internal.
 */
export function createServiceHttpApp({ logger, registry, trustedProxies, polledPaths = [] }: ServiceHttpOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // Express's own reading of X-Forwarded-For (proxy-addr): from the socket's peer back through the
  // header, the first address that is not a trusted proxy. Nothing trusted, nothing read.
  app.set('trust proxy', trustedProxies.length > 0 ? [...trustedProxies] : false);

  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    // By status too: the gateway holds its 429s up to a second on purpose (apps/gateway, rate-limit.ts),
    // which the latency of the answers it serves must not include.
    help: 'HTTP request duration, by method, route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [registry],
  });

  app.use((req, res, next) => {
    const correlationId = correlationIdFrom(req.headers[CORRELATION_HEADER]);
    req.headers[CORRELATION_HEADER] = correlationId;
    res.setHeader(CORRELATION_HEADER, correlationId);
    const stop = duration.startTimer();
    res.on('finish', () => {
      // The matched route pattern, not the URL: ids in paths would explode the label set.
      const route = req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : 'unmatched';
      const labels = { method: req.method, route, status: String(res.statusCode) };
      requests.inc(labels);
      stop(labels);
    });
    next();
  });
  app.use(
    pinoHttp({
      logger,
      genReqId: (req) => String(req.headers[CORRELATION_HEADER]),
      customProps: (req) => ({ correlationId: String(req.headers[CORRELATION_HEADER]) }),
      // Health probes and scrapes every few seconds would drown the useful lines.
      autoLogging: { ignore: (req) => req.url?.startsWith('/health') === true || req.url === '/metrics' },
      // pino-http's own levels, but a polled path's answered polls are not logged: only its refusals
      // and failures, which say why a poller is stuck.
      customLogLevel: (req, res, error) => {
        if (error || res.statusCode >= 500) return 'error';
        if (res.statusCode >= 400) return 'warn';
        return polledPaths.includes(req.url?.split('?')[0] ?? '') ? 'silent' : 'info';
      },
      serializers: {
        req: (req: { method: string; url: string }) => ({ method: req.method, url: req.url.split('?')[0] }),
        res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
      },
      // For a 5xx answer pino-http makes up an Error ("failed with status code 503") whose stack
      // shows only its own internals; the error handler has already logged why. Only a real error
      // (a broken response stream) is kept.
      customErrorObject: (_req, res, error, value: Record<string, unknown>) =>
        error.message === `failed with status code ${res.statusCode}` ? Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'err')) : value,
    }),
  );

  return app;
}

/**
 * The address a request came from (docs/architecture.md, "Client addresses"): the right-most
 * `X-Forwarded-For` entry that is not in `TRUSTED_PROXIES`, when the socket's peer is a trusted
 * proxy; otherwise the socket's peer, whatever the header says. Every service reads it here, for
 * throttling and for the audit trail.
 */
export function clientAddressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? '';
}

/**
 * `GET /health/live`, `GET /health/ready` (503 while a dependency is down, with each check's state,
 * and from the moment the service's `lifecycle` is stopping, before it closes anything) and
 * `GET /metrics` (Prometheus): for the deployment's probes and scrapers only, so mounted on a port
 * that is not public: each service's internal port (`INTERNAL_PORT`, `WEB_INTERNAL_PORT`,
 * `<SERVICE>_INTERNAL_PORT`; docs/operations.md, "Metrics and probes").
 */
export function probeRouter({ registry, readiness, lifecycle }: { registry: Registry; readiness: Readiness; lifecycle?: Pick<Lifecycle, 'stopping'> }): Router {
  const state = async () => {
    if (lifecycle?.stopping) return { ready: false, status: 'stopping', checks: {} };
    const checks: Record<string, 'up' | 'down'> = {};
    for (const [name, check] of Object.entries(readiness)) {
      checks[name] = (await Promise.resolve(check()).catch(() => false)) ? 'up' : 'down';
    }
    const ready = Object.values(checks).every((value) => value === 'up');
    return { ready, status: ready ? 'up' : 'down', checks };
  };
  // The same answer as a gauge, read when scraped: alert BedrequestServiceNotReady (docs/operations.md).
  if (!registry.getSingleMetric('service_ready')) {
    new Gauge({
      name: 'service_ready',
      help: 'Whether the service answers /health/ready with 200: 1 ready, 0 not (a dependency down, or stopping)',
      registers: [registry],
      async collect() {
        this.set((await state()).ready ? 1 : 0);
      },
    });
  }
  const router = Router();
  router.get('/health/live', (_req, res) => {
    res.json({ status: 'up' });
  });
  router.get('/health/ready', async (_req, res) => {
    const { ready, status, checks } = await state();
    res.status(ready ? 200 : 503).json({ status, checks });
  });
  router.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  return router;
}

/** Starts listening and resolves with the server once the port is bound. */
export function listen(app: Express, port: number, host: string): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(server)));
    server.once('error', reject);
  });
}
