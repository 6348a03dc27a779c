import { randomBytes } from 'node:crypto';
import { Pool } from 'pg';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology } from '@bedrequest/testing';

/**
 * What every stack on one machine needs unless the environment says otherwise: a service client
 * secret of its own (what a secret store gives a real deployment), and the one proxy its services
 * trust, the loopback address they call each other from, so that the gateway believes the web app's
 * `X-Forwarded-For` and intake the gateway's, while a client on any other address of 127.0.0.0/8
 * is a stranger whose header counts for nothing.
 */
export function localDefaults(): Record<string, string> {
  return { SERVICE_CLIENT_SECRET: randomBytes(32).toString('hex'), TRUSTED_PROXIES: LOCAL_PROXY };
}

/**
 * What keeps one stack apart from every other on the same PostgreSQL, Redis and RabbitMQ: its broker
 * namespace, a schema per service and a Redis key prefix, all named after `namespace`.
 */
export function isolatedEnvironment(namespace: string, redisKeyPrefix = ''): Record<string, string> {
  return {
    AMQP_NAMESPACE: namespace,
    AUTH_DB_SCHEMA: `${namespace}_auth`,
    INTAKE_DB_SCHEMA: `${namespace}_intake`,
    ROUTING_DB_SCHEMA: `${namespace}_routing`,
    NOTIFIER_DB_SCHEMA: `${namespace}_notifier`,
    REDIS_KEY_PREFIX: `${redisKeyPrefix}${namespace}:`,
  };
}

/** The address the services of a local stack call each other from. */
export const LOCAL_PROXY = '127.0.0.1';

/** Removes what an isolated stack left behind: its broker objects and its services' schemas (its Redis keys go with the test run's prefix). */
export async function removeNamespace(env: Record<string, string | undefined>): Promise<void> {
  await deleteBrokerTopology(env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', declareTopology(env.AMQP_NAMESPACE ?? 'bedrequest')).catch(() => undefined);
  const pool = new Pool({ connectionString: env.DATABASE_URL, max: 1 });
  pool.on('error', () => undefined);
  try {
    for (const variable of ['AUTH_DB_SCHEMA', 'INTAKE_DB_SCHEMA', 'ROUTING_DB_SCHEMA', 'NOTIFIER_DB_SCHEMA']) {
      if (env[variable]) await pool.query(`DROP SCHEMA IF EXISTS "${env[variable]}" CASCADE`).catch(() => undefined);
    }
  } finally {
    await pool.end();
  }
}
