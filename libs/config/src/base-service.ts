import { z } from 'zod';
import * as env from './env-schemas';

/**
 * Variables every service reads. Defaults point at the local services so that `npm start` works
 * on a developer machine without any configuration.
 */
export const baseServiceEnv = {
  NODE_ENV: env.nodeEnv,
  LOG_LEVEL: env.logLevel,
  AMQP_URL: env.url('amqp://guest:guest@127.0.0.1:5672', ['amqp:', 'amqps:']),
  /** Prefix of every exchange and queue, so that test runs and stacks can share one broker. */
  AMQP_NAMESPACE: env.namespace('bedrequest'),
  /** Unacknowledged deliveries a consumer holds at once. */
  AMQP_PREFETCH: env.positiveInt(32),
  /** Deliveries of one message before it is dead-lettered (quorum queue `x-delivery-limit`). */
  AMQP_DELIVERY_LIMIT: env.positiveInt(5),
  /** In-process tries again of a failing handler per delivery, with exponential backoff (≈16–31 s for 6). */
  AMQP_HANDLER_RETRIES: z.coerce.number().int().min(0).max(20).default(6),
  /** How long shutdown waits for in-flight messages before closing anyway. */
  SHUTDOWN_TIMEOUT_MS: env.positiveInt(10_000),
};

export const baseServiceSchema = z.object(baseServiceEnv);
export type BaseServiceConfig = z.infer<typeof baseServiceSchema>;
