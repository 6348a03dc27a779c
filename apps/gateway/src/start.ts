import type { Server } from 'node:http';
import { messageCatalog, declareTopology } from '@bedrequest/contracts';
import { Broker } from '@bedrequest/messaging';
import { Lifecycle, closeServer, createLogger, createMetricsRegistry, createServiceHttpApp, listen } from '@bedrequest/observability';
import type { GatewayConfig } from './config';
import { tokenProxyRouter } from './token/token-proxy.router';

export interface RunningGateway {
  readonly server: Server;
  readonly broker: Broker;
  stop(): Promise<void>;
}

export async function startGateway(config: GatewayConfig): Promise<RunningGateway> {
  const logger = createLogger('gateway', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  const registry = createMetricsRegistry('gateway');

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
  app.use('/api/v1/token', tokenProxyRouter(config.AUTH_URL, logger));

  const server = await listen(app, config.PORT, config.HOST);
  lifecycle.onStop('http', () => closeServer(server));
  logger.info({ port: config.PORT }, 'gateway listening');
  return { server, broker, stop: () => lifecycle.stop() };
}
