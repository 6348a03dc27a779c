import { randomBytes } from 'node:crypto';
import { testEnvironment } from '@bedrequest/testing';

/**
 * What keeps one test stack apart from every other on the same PostgreSQL, Redis and RabbitMQ: its
 * broker namespace, a schema per service and a Redis key prefix, all named after `namespace`; and a
 * service client secret of its own (what `npm start` or a secret store gives a real stack).
 */
export function stackEnvironment(namespace: string): Record<string, string> {
  return {
    AMQP_NAMESPACE: namespace,
    AUTH_DB_SCHEMA: `${namespace}_auth`,
    INTAKE_DB_SCHEMA: `${namespace}_intake`,
    ROUTING_DB_SCHEMA: `${namespace}_routing`,
    NOTIFIER_DB_SCHEMA: `${namespace}_notifier`,
    REDIS_KEY_PREFIX: `${testEnvironment().redisKeyPrefix}${namespace}:`,
    SERVICE_CLIENT_SECRET: randomBytes(32).toString('hex'),
  };
}
