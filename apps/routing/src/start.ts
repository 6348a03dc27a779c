import type { Server } from 'node:http';
import { messageCatalog, declareTopology } from '@bedrequest/contracts';
import { Broker } from '@bedrequest/messaging';
import { Lifecycle, closeServer, createLogger, createMetricsRegistry, createServiceHttpApp, listen } from '@bedrequest/observability';
import type { RoutingConfig } from './config';

export interface RunningRouting {
  readonly server: Server;
  stop(): Promise<void>;
}

export async function startRouting(config: RoutingConfig): Promise<RunningRouting> {
  const logger = createLogger('routing', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  const registry = createMetricsRegistry('routing');

  const broker = new Broker({
    url: config.AMQP_URL,
    topology: declareTopology(config.AMQP_NAMESPACE),
    catalog: messageCatalog,
    logger,
    prefetch: config.AMQP_PREFETCH,
    deliveryLimit: config.AMQP_DELIVERY_LIMIT,
    metrics: registry,
  });
  await broker.start();
  lifecycle.onStop('broker', () => broker.stop(config.SHUTDOWN_TIMEOUT_MS));

  const app = createServiceHttpApp({ logger, registry, readiness: { broker: () => broker.isReady() } });
  const server = await listen(app, config.ROUTING_PORT, config.HOST);
  lifecycle.onStop('http', () => closeServer(server));
  logger.info({ port: config.ROUTING_PORT }, 'routing listening');
  return { server, stop: () => lifecycle.stop() };
}
