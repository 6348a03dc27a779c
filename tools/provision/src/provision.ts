import { join } from 'node:path';
import { provisionDatabase, removeDatabasePrincipals } from './postgres';
import type { AdminUrls, ProvisionPlan } from './plan';
import { provisionBroker, removeBrokerPrincipals } from './rabbitmq';
import { provisionRedis, removeRedisPrincipals } from './redis';

export interface ProvisionTarget extends AdminUrls {
  /** The rabbitmqctl of the broker's machine, with its arguments (default `rabbitmqctl`; `rabbitmqctl -n rabbit@mq-0` for a node of a cluster). */
  rabbitmqctl: string;
  /** The broker's management HTTP API with an administrator's credentials; when set, it is used instead of rabbitmqctl. */
  rabbitmqApi?: string | undefined;
  /** Deliveries of one message before it is dead-lettered (the quorum queues' `x-delivery-limit`). */
  deliveryLimit: number;
  /** A service's `prisma/migrations` folder. */
  migrationsDirOf(service: string): string;
}

/**
 * The administrator's connections from the environment: PROVISION_DATABASE_URL, PROVISION_AMQP_URL
 * and PROVISION_REDIS_URL, else DATABASE_URL, AMQP_URL and REDIS_URL (on a development machine the
 * local administrator's: `postgres`, guest on loopback, Redis's default user), else those local
 * defaults; PROVISION_RABBITMQ_API_URL (the management API) or RABBITMQCTL; AMQP_DELIVERY_LIMIT; the services' migrations below `appsDir`.
 */
export function provisionTargetOf(env: Readonly<Record<string, string | undefined>>, appsDir: string): ProvisionTarget {
  return {
    database: env.PROVISION_DATABASE_URL ?? env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/bedrequest',
    amqp: env.PROVISION_AMQP_URL ?? env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    redis: env.PROVISION_REDIS_URL ?? env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    rabbitmqctl: env.RABBITMQCTL ?? 'rabbitmqctl',
    rabbitmqApi: env.PROVISION_RABBITMQ_API_URL,
    deliveryLimit: Number(env.AMQP_DELIVERY_LIMIT ?? 5),
    migrationsDirOf: (service) => join(appsDir, service, 'prisma', 'migrations'),
  };
}

/**
 * Sets up everything `plan` names with the administrator's connections (docs/operations.md,
 * "Provisioning"): PostgreSQL roles, schemas and migrations, the broker's topology and users, the
 * Redis users. The three servers at once, as nothing of one depends on another: the broker's users
 * go in through a rabbitmqctl, whose Erlang VM takes about a second to start, while the migrations
 * run. Idempotent; returns one line per change, never a password, in that order; a failure of any
 * is thrown once all three have ended.
 */
export async function provision(plan: ProvisionPlan, target: ProvisionTarget): Promise<string[]> {
  const results = await Promise.allSettled([
    provisionDatabase(target.database, plan.database, (service) => target.migrationsDirOf(service)),
    provisionBroker(
      { amqpUrl: target.amqp, rabbitmqctl: target.rabbitmqctl },
      {
        namespace: plan.namespace,
        deliveryLimit: target.deliveryLimit,
        principals: plan.broker,
      },
    ),
    provisionRedis(target.redis, plan.redis),
  ]);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  return results.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
}

/** Removes the roles, schemas and users of `plan` (the broker's topology is the caller's). */
export async function removeProvisioned(
  plan: ProvisionPlan,
  target: Pick<ProvisionTarget, 'database' | 'redis' | 'rabbitmqctl' | 'rabbitmqApi'>,
): Promise<void> {
  const results = await Promise.allSettled([
    removeDatabasePrincipals(target.database, plan.database),
    removeBrokerPrincipals({ rabbitmqctl: target.rabbitmqctl, api: target.rabbitmqApi }, plan.broker),
    removeRedisPrincipals(target.redis, plan.redis),
  ]);
  const failed = results.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
}
