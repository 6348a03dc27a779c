import { z } from 'zod';
import * as env from './env-schemas';
import { requiredInProduction } from './production-rule';
import { tlsEnv } from './tls';

/**
 * Variables every service reads, whatever else it speaks. Defaults point at the local services so
 * that `npm start` works on a developer machine without any configuration.
 */
export const processEnv = {
  NODE_ENV: env.nodeEnv,
  LOG_LEVEL: env.logLevel,
  /** How long shutdown waits for in-flight work before closing anyway. */
  SHUTDOWN_TIMEOUT_MS: env.positiveInt(10_000),
  /**
   * How long a starting service waits for what it needs (PostgreSQL, Redis, RabbitMQ; auth and
   * routing for the clinic registry) before it gives up with one line naming what is missing.
   */
  STARTUP_TIMEOUT_MS: env.positiveInt(60_000),
  /**
   * The proxies whose `X-Forwarded-For` a service believes (docs/architecture.md, "Client
   * addresses"): addresses and CIDR ranges, comma-separated. Empty: none, the socket's peer is the client.
   */
  TRUSTED_PROXIES: env.trustedProxies,
  /** The CAs its clients trust and the certificate it serves with (tls.ts; docs/operations.md, "Encryption in transit"). */
  ...tlsEnv,
};

/** The broker block of every service that speaks over RabbitMQ. */
export const amqpEnv = {
  /**
   * The broker and the service's credentials there; outside production the local broker as guest.
   * A cluster's nodes as several URLs separated by commas: the service connects to one of them (at
   * random, so that instances spread) and, when its node goes away, to the next (libs/messaging, BrokerConnection).
   */
  AMQP_URL: requiredInProduction(
    env.urlList('amqp://guest:guest@127.0.0.1:5672', ['amqp:', 'amqps:']),
    "the RabbitMQ URL with the service's own user and password (amqps://user:password@host:5671), or one per node of a cluster, comma-separated",
  ),
  /** Prefix of every exchange and queue, so that test runs and stacks can share one broker. */
  AMQP_NAMESPACE: env.namespace('bedrequest'),
  /**
   * Unacknowledged deliveries a consumer holds at once: the batch being handled (at most half of
   * this) and the next one collecting meanwhile.
   */
  AMQP_PREFETCH: env.positiveInt(64),
  /** How long the first message of an idle consumer waits for others to form a batch with it. */
  AMQP_BATCH_WINDOW_MS: z.coerce.number().int().min(0).max(1_000).default(2),
  /** Deliveries of one message before it is dead-lettered (quorum queue `x-delivery-limit`). */
  AMQP_DELIVERY_LIMIT: env.positiveInt(5),
  /** In-process tries again of a failing handler per delivery, with exponential backoff (≈16–31 s for 6). */
  AMQP_HANDLER_RETRIES: z.coerce.number().int().min(0).max(20).default(6),
};

/** What a service on the message backbone reads: the process's variables and the broker's. */
export const baseServiceEnv = { ...processEnv, ...amqpEnv };

export const baseServiceSchema = z.object(baseServiceEnv);
export type BaseServiceConfig = z.infer<typeof baseServiceSchema>;
