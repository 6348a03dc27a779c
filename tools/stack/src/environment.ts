import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Pool } from 'pg';
import { declareTopology } from '@bedrequest/contracts';
import {
  provision,
  provisionBrokerTopology,
  provisionPlan,
  provisionTargetOf,
  removeProvisioned,
  serviceEnvironment,
  type ProvisionPlan,
  type ProvisionTarget,
  type ProvisionedService,
} from '@bedrequest/provision';
import { deleteBrokerTopology } from '@bedrequest/testing';
import { root } from './child-process';

/**
 * What every stack on one machine needs unless the environment says otherwise: a service client
 * secret of its own (what a secret store gives a real deployment), and the one proxy its services
 * trust, the loopback address they call each other from, so that the gateway believes the web app's
 * `X-Forwarded-For` and intake the gateway's, while a client on any other address of 127.0.0.0/8
 * is a stranger whose header counts for nothing. The gateway's limit per client address spares the
 * loopback addresses, where the tests, the bench and a developer's tools all come from.
 */
export function localDefaults(): Record<string, string> {
  return { SERVICE_CLIENT_SECRET: randomBytes(32).toString('hex'), TRUSTED_PROXIES: LOCAL_PROXY, RATE_LIMIT_EXEMPT_ADDRESSES: 'loopback' };
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

/** The stack's principals and how each service connects as its own (docs/operations.md, "Provisioning"). */
export interface ProvisionedStack {
  readonly plan: ProvisionPlan;
  /** One line per change provisioning made. */
  readonly changes: string[];
  /** A service's own credentials, as the variables it reads (none for a service without any). */
  envOf(service: ProvisionedService): Record<string, string>;
  /** Runs provisioning again, with the same plan. */
  again(): Promise<void>;
}

/**
 * Provisions the stack as an operator would, with the local administrator's connections the
 * environment names (DATABASE_URL, AMQP_URL, REDIS_URL: the local `postgres`, guest on loopback,
 * Redis's default user): a role, broker user and Redis user per service with passwords made up for
 * this run. Each service then runs as its own user; provisioning declared the broker's topology.
 */
export async function provisionStack(env: Record<string, string>): Promise<ProvisionedStack> {
  const target = provisionTarget(env);
  const plan = provisionPlan(env, { generatePasswords: true });
  const changes = await provision(plan, target);
  return {
    plan,
    changes,
    envOf: (service) => serviceEnvironment(plan, service, target),
    again: async () => void (await provision(plan, target)),
  };
}

/**
 * Provisioning's topology step alone, with the environment's administrator (AMQP_URL), for services
 * that connect as that administrator instead of users of their own (a stack launched with
 * `provision: false`, a test's service on a namespace of its own): no service declares the topology,
 * administrator or not.
 */
export async function provisionTopology(env: Record<string, string | undefined>): Promise<void> {
  const target = provisionTarget(env);
  await provisionBrokerTopology(target.amqp, { namespace: env.AMQP_NAMESPACE ?? 'bedrequest', deliveryLimit: target.deliveryLimit });
}

function provisionTarget(env: Record<string, string | undefined>): ProvisionTarget {
  return provisionTargetOf(env, join(root, 'apps'));
}

/** Removes what an isolated stack left behind: its broker objects, its services' schemas, roles and users (its Redis keys go with the test run's prefix). */
export async function removeNamespace(env: Record<string, string | undefined>, provisioned?: Pick<ProvisionedStack, 'plan'>): Promise<void> {
  if (provisioned) {
    const plan = brokerUsersLeftToTestRun(env) ? { ...provisioned.plan, broker: [] } : provisioned.plan;
    await removeProvisioned(plan, provisionTarget(env)).catch(() => undefined);
  }
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

/**
 * Whether the stack's broker users are the test run's to delete: a stack of a jest run (TEST_RUN_ID)
 * on the run's broker, provisioned through the local rabbitmqctl, whose users are named after the
 * run's namespace. The run's teardown deletes all of those in one call (tools/jest/global-teardown.cjs),
 * so each stack's stop spares its own call: a rabbitmqctl starts an Erlang VM, about a second.
 */
function brokerUsersLeftToTestRun(env: Record<string, string | undefined>): boolean {
  const run = process.env;
  return (
    run.TEST_RUN_ID !== undefined &&
    run.AMQP_NAMESPACE !== undefined &&
    env.AMQP_URL === run.AMQP_URL &&
    env.RABBITMQCTL === undefined &&
    env.PROVISION_AMQP_URL === undefined &&
    env.PROVISION_RABBITMQ_API_URL === undefined &&
    (env.AMQP_NAMESPACE ?? '').startsWith(`${run.AMQP_NAMESPACE}_`)
  );
}

/**
 * Removes a namespace a stack kept on purpose (`npm run sandbox -- --reset`): what removeNamespace
 * removes, with the principals provisioning names after the namespace (their passwords do not
 * matter to their removal), and the Redis keys under REDIS_KEY_PREFIX.
 */
export async function removeKeptNamespace(given: Record<string, string | undefined>): Promise<void> {
  // The services' defaults (libs/config), for a caller that names none.
  const env: Record<string, string> = {
    DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/bedrequest',
    REDIS_URL: 'redis://127.0.0.1:6379',
    ...definedOnly(given),
  };
  await removeNamespace(env, { plan: provisionPlan(env, { generatePasswords: true }) });
  const prefix = env.REDIS_KEY_PREFIX;
  if (!prefix) return;
  const redis = new Redis(env.REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    for (let cursor = '0'; ;) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      if (keys.length > 0) await redis.unlink(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  } finally {
    redis.disconnect();
  }
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
