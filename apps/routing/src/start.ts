import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { declareTopology } from '@bedrequest/contracts';
import { connectServiceBroker, startOutboxRelay } from '@bedrequest/messaging';
import { Lifecycle, closeServer, createLogger, createMetricsRegistry, createServiceHttpApp, listen } from '@bedrequest/observability';
import { databaseIsReachable } from '@bedrequest/persistence';
import { BedCapacityRepository } from './beds/bed-capacity.repository';
import { BedCountService } from './beds/bed-count.service';
import { capacityRouter } from './beds/capacity.router';
import type { RoutingConfig } from './config';
import { ClinicDispatchService } from './dispatch/clinic-dispatch.service';
import { DispatchRepository } from './dispatch/dispatch.repository';
import { notificationsRouter } from './dispatch/notifications.router';
import { dispatchAndBedReleaseHandler } from './dispatch/dispatch-and-bed-release.consumer';
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

  const topology = declareTopology(config.AMQP_NAMESPACE);
  const broker = await connectServiceBroker(config, { logger, metrics: registry });
  lifecycle.onStop('broker', () => broker.stop(config.SHUTDOWN_TIMEOUT_MS));

  const { relay, stop: stopRelay } = startOutboxRelay({ databaseUrl: config.DATABASE_URL, schema: config.ROUTING_DB_SCHEMA, broker, logger, pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS });
  lifecycle.onStop('outbox relay', stopRelay);

  const clinics = new ClinicRegistry(new ClinicRepository(prisma));
  const beds = new BedCapacityRepository(prisma, config.ROUTING_DB_SCHEMA);
  const dispatches = new DispatchRepository(prisma, config.ROUTING_DB_SCHEMA);
  await broker.consume(topology.queues.routing.name, dispatchAndBedReleaseHandler(new ClinicDispatchService(dispatches), relay, logger));

  const app = createServiceHttpApp({
    logger,
    registry,
    readiness: {
      broker: () => broker.isReady(),
      database: () => databaseIsReachable(() => prisma.$queryRaw`SELECT 1`),
    },
  });
  app.use('/internal/clinics/:ik/capacity', capacityRouter(new BedCountService(clinics, beds), logger));
  app.use('/internal/clinics/:ik/notifications', notificationsRouter(dispatches, logger));
  app.use('/internal/clinics', clinicsRouter(clinics, logger));

  const server = await listen(app, config.ROUTING_PORT, config.HOST);
  lifecycle.onStop('http', () => closeServer(server));
  const { port } = server.address() as AddressInfo;
  logger.info({ port }, 'routing listening');
  return { server, url: `http://${config.HOST}:${port}`, stop: () => lifecycle.stop() };
}
