import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageCatalog, declareTopology } from '@bedrequest/contracts';
import { Broker } from '@bedrequest/messaging';
import { Lifecycle, closeServer, createLogger, createMetricsRegistry, createServiceHttpApp, listen } from '@bedrequest/observability';
import { databaseIsReachable } from '@bedrequest/persistence';
import type { RoutingConfig } from './config';
import { openRoutingDatabase } from './persistence/database';
import { ClinicRegistry } from './registry/clinic-registry.service';
import { ClinicRepository } from './registry/clinic.repository';
import { clinicsRouter } from './registry/clinics.router';

export interface RunningRouting {
  readonly server: Server;
  /** The bound address, e.g. http://127.0.0.1:8083 (ROUTING_PORT=0 picks a free port). */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startRouting(config: RoutingConfig): Promise<RunningRouting> {
  const logger = createLogger('routing', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  const registry = createMetricsRegistry('routing');

  const prisma = await openRoutingDatabase({
    databaseUrl: config.DATABASE_URL,
    schema: config.ROUTING_DB_SCHEMA,
    poolSize: config.DATABASE_POOL_SIZE,
  });
  lifecycle.onStop('database', () => prisma.$disconnect());

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

  const app = createServiceHttpApp({
    logger,
    registry,
    readiness: {
      broker: () => broker.isReady(),
      database: () => databaseIsReachable(() => prisma.$queryRaw`SELECT 1`),
    },
  });
  app.use('/internal/clinics', clinicsRouter(new ClinicRegistry(new ClinicRepository(prisma)), logger));

  const server = await listen(app, config.ROUTING_PORT, config.HOST);
  lifecycle.onStop('http', () => closeServer(server));
  const { port } = server.address() as AddressInfo;
  logger.info({ port }, 'routing listening');
  return { server, url: `http://${config.HOST}:${port}`, stop: () => lifecycle.stop() };
}
