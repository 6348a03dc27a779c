import type { Server } from 'node:http';
import { messageCatalog, declareTopology } from '@bedrequest/contracts';
import { Broker } from '@bedrequest/messaging';
import { Lifecycle, closeServer, createLogger, createMetricsRegistry, createServiceHttpApp, listen } from '@bedrequest/observability';
import { databaseIsReachable } from '@bedrequest/persistence';
import type { IntakeConfig } from './config';
import { openIntakeDatabase } from './persistence/database';

export interface RunningIntake {
  readonly server: Server;
  stop(): Promise<void>;
}

export async function startIntake(config: IntakeConfig): Promise<RunningIntake> {
  const logger = createLogger('intake', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  const registry = createMetricsRegistry('intake');

  const prisma = await openIntakeDatabase({
    databaseUrl: config.DATABASE_URL,
    schema: config.INTAKE_DB_SCHEMA,
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
  const server = await listen(app, config.INTAKE_PORT, config.HOST);
  lifecycle.onStop('http', () => closeServer(server));
  logger.info({ port: config.INTAKE_PORT }, 'intake listening');
  return { server, stop: () => lifecycle.stop() };
}
