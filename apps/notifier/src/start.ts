import type { Server } from 'node:http';
import { declareTopology } from '@bedrequest/contracts';
import { startDataKeyring } from '@bedrequest/crypto';
import { jsonErrorHandler } from '@bedrequest/http';
import { connectServiceBroker } from '@bedrequest/messaging';
import { createServiceHttpApp, serveHttp, serveProbes, startService, type Started } from '@bedrequest/observability';
import { databaseIsReachable } from '@bedrequest/persistence';
import { serviceTokensFor, tokenVerifierFor } from '@bedrequest/tokens';
import { allowsPrivateCallbacks, requiresHttpsCallbacks, type NotifierConfig } from './config';
import type { Resolve } from '@bedrequest/http';
import { deliveryMetrics } from './delivery/delivery-metrics';
import { DeliveryRepository } from './delivery/delivery.repository';
import { DeliveryWorker } from './delivery/delivery-worker';
import { DisabledParties, loadDisabledPartiesFrom } from './delivery/disabled-parties';
import { RetentionCleanup } from './delivery/retention-cleanup';
import { RetryPolicy } from './delivery/retry-policy';
import { WebhookSender } from './delivery/webhook-sender';
import { WithheldDeliveries } from './delivery/withheld-deliveries';
import { RequestErasureRepository } from './erasure/request-erasure.repository';
import { notifierHandler } from './events/notifier.consumer';
import { EventRepository } from './events/event.repository';
import { notifierTables, openNotifierDatabase } from './persistence/database';
import { openSealedFields, type ProtectedFields } from './persistence/sealed-fields';
import { SubscriptionRepository } from './subscriptions/subscription.repository';
import { SubscriptionUpkeep } from './subscriptions/subscription-upkeep';
import { SubscriptionService } from './subscriptions/subscription.service';
import { subscriptionsRouter } from './subscriptions/subscriptions.router';

export type RunningNotifier = Started<{
  readonly server: Server;
  /** The bound address (NOTIFIER_PORT=0 picks a free port): the subscription API. */
  readonly url: string;
  /** The internal address (NOTIFIER_INTERNAL_PORT): health probes and metrics. */
  readonly internalUrl: string;
}>;

export interface NotifierOverrides {
  /** Where the SQL migrations are, for a bundled test process (default: beside the code). */
  migrationsDir?: string;
  /** DNS resolution for the address guard (tests). */
  resolve?: Resolve;
  /**
   * Stores the secrets and Tasks some other way than sealed: only the bench's comparison of the
   * cost of sealing (bench/src/figure-encryption.ts) sets it, from a test entry point.
   */
  protectedFields?: ProtectedFields;
}

export function startNotifier(config: NotifierConfig, overrides: NotifierOverrides = {}): Promise<RunningNotifier> {
  const allowPrivate = allowsPrivateCallbacks(config);
  const requireHttps = requiresHttpsCallbacks(config);
  return startService('notifier', { logLevel: config.LOG_LEVEL, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async (context) => {
    const { logger, registry, lifecycle } = context;
    const prisma = await openNotifierDatabase({
      databaseUrl: config.DATABASE_URL,
      schema: config.NOTIFIER_DB_SCHEMA,
      poolSize: config.DATABASE_POOL_SIZE,
      ...(overrides.migrationsDir ? { migrationsDir: overrides.migrationsDir } : {}),
    });
    lifecycle.onStop('database', () => prisma.$disconnect());
    const tables = notifierTables(config.NOTIFIER_DB_SCHEMA);
    // Webhook secrets and Tasks are sealed at rest (docs/data-protection.md).
    const { fields, development, unavailable } = await openSealedFields(config, prisma, (error) =>
      logger.warn({ err: String(error) }, 'looking for a new data key failed; sealing with the current one'),
    );
    lifecycle.onStop('data keys', startDataKeyring({ keyring: fields.keyring, development, unavailable }, logger));

    const stored = overrides.protectedFields ?? fields;
    const deliveries = new DeliveryRepository(prisma, tables, stored);
    const sender = new WebhookSender({
      timeoutMs: config.WEBHOOK_TIMEOUT,
      allowPrivate,
      connectionsPerOrigin: config.WEBHOOK_CONCURRENCY,
      ...(overrides.resolve ? { resolve: overrides.resolve } : {}),
    });
    // Closed after the worker (stop runs in reverse order): its last attempts still use the pool.
    lifecycle.onStop('webhook connections', () => sender.close());
    const disabledParties = await watchDisabledParties(config, context);
    const worker = new DeliveryWorker({
      repository: deliveries,
      events: new EventRepository(prisma, tables, stored),
      sender,
      policy: new RetryPolicy(config.WEBHOOK_RETRY_SCHEDULE),
      metrics: deliveryMetrics(registry, () => deliveries.countDue()),
      logger,
      timeoutMs: config.WEBHOOK_TIMEOUT,
      concurrency: config.WEBHOOK_CONCURRENCY,
      caps: { perSubscription: config.WEBHOOK_MAX_IN_FLIGHT_PER_SUBSCRIPTION, perOrigin: config.WEBHOOK_MAX_IN_FLIGHT_PER_ORIGIN },
      pollIntervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      disableAfterMs: config.WEBHOOK_DISABLE_AFTER,
      ...(disabledParties
        ? {
            withholding: {
              reasonFor: (delivery) => (disabledParties.isDisabled(delivery.partyId) ? 'party-disabled' : undefined),
              deliveries: new WithheldDeliveries(prisma, tables),
            },
          }
        : {}),
    });
    worker.start();
    lifecycle.onStop('delivery worker', (remainingMs) => worker.stop(remainingMs));
    const cleanup = new RetentionCleanup(deliveries, config.WEBHOOK_EVENT_RETENTION, logger);
    cleanup.start();
    lifecycle.onStop('retention cleanup', () => cleanup.stop());

    const topology = declareTopology(config.AMQP_NAMESPACE);
    const broker = await connectServiceBroker(config, { logger, metrics: registry });
    // Stopped before the worker: no new events are taken in while the last attempts finish.
    lifecycle.onStop('broker', (remainingMs) => broker.stop(remainingMs));
    // Events of AdmissionResponse and AdmissionOverdue messages, and the erasures intake tells of (request.erased.v1).
    await broker.consume(topology.queues.notifier.name, notifierHandler(worker, new RequestErasureRepository(prisma, tables, stored), logger));

    const subscriptionRepository = new SubscriptionRepository(prisma, tables, stored);
    const upkeep = new SubscriptionUpkeep({
      prisma,
      tables,
      fields: stored,
      subscriptions: subscriptionRepository,
      sender,
      registry,
      logger,
      intervalMs: config.WEBHOOK_HEARTBEAT_CHECK_INTERVAL,
    });
    upkeep.start();
    lifecycle.onStop('heartbeats', () => upkeep.stop());
    const subscriptions = new SubscriptionService(subscriptionRepository, {
      allowPrivate,
      requireHttps,
      heartbeatMinSeconds: Math.ceil(config.WEBHOOK_HEARTBEAT_MIN / 1000),
      secretOverlapMs: config.WEBHOOK_SECRET_OVERLAP,
      ...(overrides.resolve ? { resolve: overrides.resolve } : {}),
      onDeliveriesDue: () => worker.wake(),
    });
    const app = createServiceHttpApp({ logger, registry, trustedProxies: config.TRUSTED_PROXIES });
    app.use('/internal/subscriptions', subscriptionsRouter(subscriptions, tokenVerifierFor(config, { services: false }), logger));
    logger.info(
      { allowPrivateCallbacks: allowPrivate, requireHttpsCallbacks: requireHttps },
      `callback URLs on private addresses are ${allowPrivate ? 'allowed' : 'refused'}, http ones ${requireHttps ? 'refused' : 'allowed'}`,
    );
    const internal = await serveProbes(context, {
      readiness: { broker: () => broker.isReady(), database: () => databaseIsReachable(() => prisma.$queryRaw`SELECT 1`) },
      host: config.HOST,
      port: config.NOTIFIER_INTERNAL_PORT,
      after: [jsonErrorHandler(logger)],
    });
    const { server, url } = await serveHttp(context, app, { host: config.HOST, port: config.NOTIFIER_PORT });
    return { server, url, internalUrl: internal.url };
  });
}

/**
 * The parties disabled now, read from auth with the notifier's service tokens (docs/webhooks.md,
 * "Authorization at delivery time"), started before the worker so that its first claims are checked;
 * none without SERVICE_CLIENT_SECRET (development and test only: production requires it).
 */
async function watchDisabledParties(
  config: NotifierConfig,
  { logger, registry, lifecycle }: Pick<Parameters<Parameters<typeof startService>[2]>[0], 'logger' | 'registry' | 'lifecycle'>,
): Promise<DisabledParties | undefined> {
  if (!config.SERVICE_CLIENT_SECRET) {
    logger.warn('SERVICE_CLIENT_SECRET is unset: webhooks of disabled parties are not withheld (development and test only)');
    return undefined;
  }
  const serviceTokens = serviceTokensFor({ ...config, SERVICE_CLIENT_SECRET: config.SERVICE_CLIENT_SECRET }, 'notifier');
  lifecycle.onStop('service tokens', () => serviceTokens.close());
  const parties = new DisabledParties({
    ...loadDisabledPartiesFrom(config.AUTH_URL, serviceTokens),
    pollIntervalMs: config.WEBHOOK_PARTY_POLL_MS,
    startGraceMs: config.STARTUP_TIMEOUT_MS,
    logger,
    registry,
  });
  await parties.start();
  lifecycle.onStop('disabled parties', () => parties.stop());
  return parties;
}
