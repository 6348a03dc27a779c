import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ClinicDirectory, loadClinicsFrom } from '@bedrequest/clinic-directory';
import { declareTopology } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { connectServiceBroker, startOutboxRelay } from '@bedrequest/messaging';
import { Lifecycle, closeServer, createLogger, createMetricsRegistry, createServiceHttpApp, listen } from '@bedrequest/observability';
import { databaseIsReachable } from '@bedrequest/persistence';
import type { IntakeConfig } from './config';
import { internalRouter } from './http/internal.router';
import { intakeHandler } from './messages/intake.consumer';
import { openIntakeDatabase } from './persistence/database';
import { prismaRunner } from './persistence/sql-runner';
import { AdmissionRequestRepository } from './requests/admission-request.repository';
import { IntakeService } from './requests/intake.service';
import { TaskReadRepository } from './tasks/task-read.repository';
import { TaskReadService } from './tasks/task-read.service';

export interface RunningIntake {
  readonly server: Server;
  /** The bound address (INTAKE_PORT=0 picks a free port). */
  readonly url: string;
  stop(): Promise<void>;
}

export async function startIntake(config: IntakeConfig): Promise<RunningIntake> {
  const logger = createLogger('intake', config.LOG_LEVEL);
  const lifecycle = new Lifecycle(logger);
  const registry = createMetricsRegistry('intake');
  const systems = fhirSystems(config.PROFILE_BASE);

  const prisma = await openIntakeDatabase({
    databaseUrl: config.DATABASE_URL,
    schema: config.INTAKE_DB_SCHEMA,
    poolSize: config.DATABASE_POOL_SIZE,
  });
  lifecycle.onStop('database', () => prisma.$disconnect());

  const topology = declareTopology(config.AMQP_NAMESPACE);
  const broker = await connectServiceBroker(config, { logger, metrics: registry });
  lifecycle.onStop('broker', () => broker.stop(config.SHUTDOWN_TIMEOUT_MS));

  const { relay, stop: stopRelay } = startOutboxRelay({ databaseUrl: config.DATABASE_URL, schema: config.INTAKE_DB_SCHEMA, broker, logger, pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS });
  lifecycle.onStop('outbox relay', stopRelay);

  // The registry in memory (routing owns it): declining for clinics without the requested
  // department needs it for every request.
  const clinics = new ClinicDirectory({ load: loadClinicsFrom(config.ROUTING_URL), logger });
  await clinics.start(broker);
  lifecycle.onStop('clinic directory', async () => clinics.stop());

  const service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), config.INTAKE_DB_SCHEMA), clinics, systems);
  await broker.consume(topology.queues.intake.name, intakeHandler(service, relay, logger));

  const app = createServiceHttpApp({
    logger,
    registry,
    readiness: {
      broker: () => broker.isReady(),
      database: () => databaseIsReachable(() => prisma.$queryRaw`SELECT 1`),
    },
  });
  app.use(internalRouter(new TaskReadService(new TaskReadRepository(prisma, config.INTAKE_DB_SCHEMA), systems), logger));
  const server = await listen(app, config.INTAKE_PORT, config.HOST);
  lifecycle.onStop('http', () => closeServer(server));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  logger.info({ url }, 'intake listening');
  return { server, url, stop: () => lifecycle.stop() };
}
