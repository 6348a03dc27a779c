import type { Server } from 'node:http';
import { declareTopology } from '@bedrequest/contracts';
import { jsonErrorHandler } from '@bedrequest/http';
import { connectServiceBroker, startOutboxRelay } from '@bedrequest/messaging';
import { createServiceHttpApp, serveHttp, serveProbes, startService, type Started } from '@bedrequest/observability';
import { databaseIsReachable } from '@bedrequest/persistence';
import { tokenVerifierFor } from '@bedrequest/tokens';
import { BedCapacityRepository } from './beds/bed-capacity.repository';
import { BedCountService } from './beds/bed-count.service';
import { capacityRouter } from './beds/capacity.router';
import { freeBedsRouter } from './beds/free-beds.router';
import type { RoutingConfig } from './config';
import { ClinicDispatchService } from './dispatch/clinic-dispatch.service';
import { DispatchRepository } from './dispatch/dispatch.repository';
import { dispatchAndBedReleaseHandler } from './dispatch/dispatch-and-bed-release.consumer';
import { openRoutingDatabase } from './persistence/database';
import { ClinicRegistry } from './registry/clinic-registry.service';
import { ClinicRepository } from './registry/clinic.repository';
import { clinicsRouter } from './registry/clinics.router';
import { freeBedsVisibilityRouter } from './registry/free-beds-visibility.router';

export type RunningRouting = Started<{
  readonly server: Server;
  /** The bound address, e.g. http://127.0.0.1:8083 (ROUTING_PORT=0 picks a free port): the clinic registry and bed counts. */
  readonly url: string;
  /** The internal address (ROUTING_INTERNAL_PORT): health probes and metrics. */
  readonly internalUrl: string;
}>;

export function startRouting(config: RoutingConfig): Promise<RunningRouting> {
  return startService('routing', { logLevel: config.LOG_LEVEL, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async (context) => {
    const { logger, registry, lifecycle } = context;
    const prisma = await openRoutingDatabase({ databaseUrl: config.DATABASE_URL, schema: config.ROUTING_DB_SCHEMA, poolSize: config.DATABASE_POOL_SIZE });
    lifecycle.onStop('database', () => prisma.$disconnect());

    const topology = declareTopology(config.AMQP_NAMESPACE);
    const broker = await connectServiceBroker(config, { logger, metrics: registry });
    lifecycle.onStop('broker', (remainingMs) => broker.stop(remainingMs));

    const { relay, stop: stopRelay } = startOutboxRelay({
      databaseUrl: config.DATABASE_URL,
      schema: config.ROUTING_DB_SCHEMA,
      broker,
      logger,
      pollIntervalMs: config.OUTBOX_POLL_INTERVAL_MS,
      metrics: registry,
    });
    lifecycle.onStop('outbox relay', stopRelay);

    const clinicRows = new ClinicRepository(prisma);
    const clinics = new ClinicRegistry(clinicRows);
    const beds = new BedCapacityRepository(prisma, config.ROUTING_DB_SCHEMA);
    const dispatches = new DispatchRepository(prisma, config.ROUTING_DB_SCHEMA);
    // Dispatches, answers and erasures (request.erased.v1) share one batch handler: an erasure gives
    // beds back as a decline does, and applies in order with the dispatches of its request.
    await broker.consume(topology.queues.routing.name, dispatchAndBedReleaseHandler(new ClinicDispatchService(dispatches), relay, logger));

    // The registry is read by services (service tokens); a clinic's bed counts by that clinic only
    // (its token, forwarded by the gateway); the counts of clinics that show them by referrers (theirs).
    const verifier = tokenVerifierFor(config, { services: true });
    const app = createServiceHttpApp({ logger, registry, trustedProxies: config.TRUSTED_PROXIES });
    app.use('/internal/clinics/:ik/capacity', capacityRouter(new BedCountService(clinics, beds), verifier, logger));
    app.use('/internal/clinics/:ik/free-beds-visibility', freeBedsVisibilityRouter(clinicRows, verifier, logger));
    app.use('/internal/free-beds', freeBedsRouter(beds, verifier, logger));
    app.use('/internal/clinics', clinicsRouter(clinics, verifier, logger));
    // Stopped first after the HTTP server: no new deliveries, the batches taken are written and
    // acked while the outbox relay (stopped after them) still publishes what they wrote.
    lifecycle.onStop('consumers', (remainingMs) => broker.stopConsuming(remainingMs));

    const internal = await serveProbes(context, {
      readiness: { broker: () => broker.isReady(), database: () => databaseIsReachable(() => prisma.$queryRaw`SELECT 1`) },
      host: config.HOST,
      port: config.ROUTING_INTERNAL_PORT,
      after: [jsonErrorHandler(logger)],
    });
    const { server, url } = await serveHttp(context, app, { host: config.HOST, port: config.ROUTING_PORT });
    return { server, url, internalUrl: internal.url };
  });
}
