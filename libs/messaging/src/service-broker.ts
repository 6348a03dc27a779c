import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { BaseServiceConfig } from '@bedrequest/config';
import { declareTopology, messageCatalog } from '@bedrequest/contracts';
import { Broker } from './broker';

/**
 * The broker connection of a service, configured from the variables every service reads
 * (libs/config `baseServiceEnv`), with the whole topology and message catalog of libs/contracts. It
 * declares no topology, in production or not: that is provisioning's (docs/operations.md,
 * "Provisioning"), and a service's broker user may not; it finds the events exchange there or says
 * to provision.
 */
export async function connectServiceBroker(
  config: Pick<BaseServiceConfig, 'AMQP_URL' | 'AMQP_NAMESPACE' | 'AMQP_PREFETCH' | 'AMQP_DELIVERY_LIMIT'> &
    Partial<Pick<BaseServiceConfig, 'AMQP_HANDLER_RETRIES' | 'AMQP_BATCH_WINDOW_MS'>>,
  dependencies: { logger: Logger; metrics: Registry },
): Promise<Broker> {
  const broker = new Broker({
    url: config.AMQP_URL,
    topology: declareTopology(config.AMQP_NAMESPACE),
    catalog: messageCatalog,
    logger: dependencies.logger,
    prefetch: config.AMQP_PREFETCH,
    deliveryLimit: config.AMQP_DELIVERY_LIMIT,
    declareTopology: false,
    metrics: dependencies.metrics,
    ...(config.AMQP_HANDLER_RETRIES === undefined ? {} : { handlerRetry: { retries: config.AMQP_HANDLER_RETRIES, minTimeoutMs: 250, maxTimeoutMs: 15_000 } }),
    ...(config.AMQP_BATCH_WINDOW_MS === undefined ? {} : { batch: { windowMs: config.AMQP_BATCH_WINDOW_MS } }),
  });
  await broker.start();
  return broker;
}
