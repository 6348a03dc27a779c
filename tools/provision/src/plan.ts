import { randomBytes } from 'node:crypto';
import { env as configEnv } from '@bedrequest/config';
import {
  AdmissionBundleSubmittedV1,
  AdmissionOverdueV1,
  AdmissionResponseV1,
  ClinicAnswerSubmittedV1,
  ClinicRegistryChangedV1,
  DocumentBundleSubmittedV1,
  RequestDispatchedV1,
  RequestErasedV1,
  deadLetterQueueName,
  declareTopology,
  type QueueKey,
} from '@bedrequest/contracts';

/**
 * Who may do what, per service (docs/operations.md, "Provisioning"): which own a PostgreSQL schema,
 * which speak over RabbitMQ (the queue each consumes, the broadcasts each listens to and the routing
 * keys each may publish), which
 * keep state in Redis and under which key prefix. The one table provisioning, the stacks and the
 * tests read.
 */
export const PRINCIPALS = {
  auth: { database: 'AUTH_DB_SCHEMA', redis: 'auth:' },
  intake: {
    database: 'INTAKE_DB_SCHEMA',
    // Intake keeps every dead-letter queue (apps/intake/src/dead-letters): what reaches routing's and
    // the notifier's is its own messages, so it reads nothing it did not write or receive.
    broker: {
      consumes: 'intake',
      // Its clinic directory (libs/clinic-directory), as the gateway's.
      listens: [ClinicRegistryChangedV1],
      publishes: [RequestDispatchedV1, AdmissionResponseV1, AdmissionOverdueV1, RequestErasedV1],
      replies: true,
      deadLetters: ['intake', 'routing', 'notifier'],
    },
  },
  routing: { database: 'ROUTING_DB_SCHEMA', broker: { consumes: 'routing', publishes: [ClinicAnswerSubmittedV1, ClinicRegistryChangedV1] } },
  notifier: { database: 'NOTIFIER_DB_SCHEMA', broker: { consumes: 'notifier', publishes: [] } },
  gateway: {
    broker: { listens: [ClinicRegistryChangedV1], publishes: [AdmissionBundleSubmittedV1, DocumentBundleSubmittedV1, ClinicAnswerSubmittedV1] },
    redis: 'gateway:',
  },
  web: { redis: 'web:' },
} as const satisfies Record<string, Principal>;

interface Principal {
  /** The variable naming the service's schema (its default: the service's name). */
  database?: 'AUTH_DB_SCHEMA' | 'INTAKE_DB_SCHEMA' | 'ROUTING_DB_SCHEMA' | 'NOTIFIER_DB_SCHEMA';
  broker?: {
    consumes?: QueueKey;
    /** The broadcasts it subscribes to: each process binds a server-named exclusive queue of its own to them (libs/messaging, subscription.ts). */
    listens?: readonly { routingKey: string }[];
    publishes: readonly { routingKey: string }[];
    replies?: boolean;
    /** The queues whose dead-letter queues it reads, and whose messages it publishes again (to the dead-letter queue or back onto the queue). */
    deadLetters?: readonly QueueKey[];
  };
  /** Its keys, after REDIS_KEY_PREFIX. */
  redis?: string;
}

export type ProvisionedService = keyof typeof PRINCIPALS;
export const PROVISIONED_SERVICES = Object.keys(PRINCIPALS) as ProvisionedService[];

/**
 * Who reads views of a service's schema and nothing else (docs/operations.md, "Provisioning"): KEDA
 * counts the notifier's backlog (deploy/base/services/notifier.yaml), not as the notifier's role,
 * which may read and write every delivery. Its password comes from `<NAME>_DATABASE_PASSWORD`.
 */
const VIEW_READERS = {
  keda: { service: 'notifier', views: ['delivery_backlog'] },
} as const satisfies Record<string, { service: ProvisionedService; views: readonly string[] }>;

export interface DatabasePrincipal {
  service: ProvisionedService;
  schema: string;
  /** Owns the schema and everything in it; runs the migrations; never logs in. */
  owner: string;
  /** The service's own login: reads and writes the schema's tables, nothing else. */
  app: string;
  password: string;
  /** Logins that may SELECT some of the schema's views and nothing else. */
  readers: ViewReader[];
}

export interface ViewReader {
  /** What reads (`keda`). */
  name: string;
  /** `<namespace>_<name>`. */
  role: string;
  password: string;
  views: readonly string[];
}

export interface BrokerPrincipal {
  service: ProvisionedService;
  user: string;
  password: string;
  /** Regular expressions over resource names, as RabbitMQ's permissions take them. */
  configure: string;
  write: string;
  read: string;
  /** The routing keys it may publish to the events exchange (a topic permission's write). */
  publish: string;
  /** The routing keys it may bind a queue to on the events exchange (a topic permission's read): those it consumes. */
  consume: string;
}

export interface RedisPrincipal {
  service: ProvisionedService;
  user: string;
  password: string;
  /** Every key it may touch starts with this. */
  keyPrefix: string;
}

export interface ProvisionPlan {
  namespace: string;
  eventsExchange: string;
  database: DatabasePrincipal[];
  broker: BrokerPrincipal[];
  redis: RedisPrincipal[];
}

/**
 * The plan for one environment: names follow the namespace (`<namespace>_<service>_app`, …) so that
 * stacks sharing a server never collide; passwords come from `<SERVICE>_DATABASE_PASSWORD`,
 * `<SERVICE>_AMQP_PASSWORD` and `<SERVICE>_REDIS_PASSWORD` (KEDA's from `KEDA_DATABASE_PASSWORD`),
 * or, where `generate` allows it (a local stack), are made up for this run.
 */
export function provisionPlan(env: Readonly<Record<string, string | undefined>>, options: { generatePasswords: boolean }): ProvisionPlan {
  const namespace = env.AMQP_NAMESPACE ?? 'bedrequest';
  const topology = declareTopology(namespace);
  const missing: string[] = [];
  const password = (service: string, kind: 'DATABASE' | 'AMQP' | 'REDIS') => {
    const variable = `${service.toUpperCase()}_${kind}_PASSWORD`;
    const given = env[variable];
    if (given) return given;
    if (!options.generatePasswords) missing.push(variable);
    return randomBytes(24).toString('base64url');
  };
  const name = (service: string) => `${namespace}_${service}`;
  const plan: ProvisionPlan = { namespace, eventsExchange: topology.eventsExchange, database: [], broker: [], redis: [] };
  for (const service of PROVISIONED_SERVICES) {
    const principal: Principal = PRINCIPALS[service];
    if (principal.database) {
      const schema = env[principal.database] ?? service;
      const readers = Object.entries(VIEW_READERS)
        .filter(([, reader]) => reader.service === service)
        .map(([reader, { views }]) => ({ name: reader, role: name(reader), password: password(reader, 'DATABASE'), views }));
      plan.database.push({ service, schema, owner: `${name(service)}_owner`, app: `${name(service)}_app`, password: password(service, 'DATABASE'), readers });
    }
    if (principal.broker) plan.broker.push({ service, user: name(service), password: password(service, 'AMQP'), ...brokerRights(topology, principal.broker) });
    if (principal.redis) {
      plan.redis.push({
        service,
        user: name(service),
        password: password(service, 'REDIS'),
        keyPrefix: `${env.REDIS_KEY_PREFIX ?? 'bedrequest:'}${principal.redis}`,
      });
    }
  }
  if (missing.length > 0) {
    throw new Error(`passwords missing (one per principal, from the secret store):\n${missing.map((variable) => `  ${variable}`).join('\n')}`);
  }
  return plan;
}

/**
 * A service's rights on the broker. It reads its own queue (intake also the dead-letter queues) and
 * writes only to the events exchange (intake also to the default exchange, for its replies and to put
 * dead letters back) and, there, only its own routing keys. A service that listens to broadcasts may
 * also declare, bind and read server-named exclusive queues (`amq.gen-…`) and read the events
 * exchange to bind them; one that does not may declare nothing. Of the events exchange's routing keys
 * it may bind only those it consumes (its queue's bindings in libs/contracts' topology, and its
 * broadcasts), so that no service can have another's messages routed to it. The durable exchanges,
 * queues and their bindings are the provisioner's to declare: no service may configure them.
 */
function brokerRights(
  topology: ReturnType<typeof declareTopology>,
  broker: NonNullable<Principal['broker']>,
): Pick<BrokerPrincipal, 'configure' | 'write' | 'read' | 'publish' | 'consume'> {
  const listeners = (broker.listens ?? []).length > 0 ? ['amq\\.gen-.*'] : [];
  const events = escapeRegex(topology.eventsExchange);
  const own = broker.consumes ? [escapeRegex(topology.queues[broker.consumes].name)] : [];
  const deadLetters = (broker.deadLetters ?? []).map((key) => escapeRegex(deadLetterQueueName(topology.queues[key].name)));
  const defaultExchange = broker.replies || deadLetters.length > 0 ? ['amq\\.default'] : [];
  const consumed = [
    ...(broker.consumes ? topology.queues[broker.consumes].bindings : []),
    ...(broker.listens ?? []).map((definition) => definition.routingKey),
  ];
  return {
    configure: anyOf(listeners),
    write: anyOf([events, ...listeners, ...defaultExchange]),
    read: anyOf([...(listeners.length > 0 ? [events] : []), ...listeners, ...own, ...deadLetters]),
    publish: anyOf(broker.publishes.map((definition) => escapeRegex(definition.routingKey))),
    consume: anyOf([...new Set(consumed)].map(escapeRegex)),
  };
}

/** A regular expression matching exactly the given alternatives; none: only the empty name, which no resource has. */
function anyOf(alternatives: readonly string[]): string {
  if (alternatives.length === 0) return '^$';
  return alternatives.length === 1 ? `^${alternatives[0]}$` : `^(${alternatives.join('|')})$`;
}

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
}

/** The credentials a service connects with, as the variables it reads, on the servers of `admin`. */
export function serviceEnvironment(plan: ProvisionPlan, service: ProvisionedService, admin: AdminUrls): Record<string, string> {
  const env: Record<string, string> = {};
  // A URL list (a broker cluster's nodes, comma-separated) gets the user on every one of them.
  const withUser = (urls: string, user: string, password: string) =>
    configEnv
      .urlsOf(urls)
      .map((url) => {
        const parsed = new URL(url);
        parsed.username = encodeURIComponent(user);
        parsed.password = encodeURIComponent(password);
        return parsed.toString();
      })
      .join(',');
  const database = plan.database.find((principal) => principal.service === service);
  if (database) env.DATABASE_URL = withUser(admin.database, database.app, database.password);
  const broker = plan.broker.find((principal) => principal.service === service);
  if (broker) env.AMQP_URL = withUser(admin.amqp, broker.user, broker.password);
  const redis = plan.redis.find((principal) => principal.service === service);
  if (redis) env.REDIS_URL = withUser(admin.redis, redis.user, redis.password);
  return env;
}

/** The administrator's connections provisioning uses (docs/operations.md, "Provisioning"). */
export interface AdminUrls {
  /** A role that may create roles and schemas (the local `postgres`), on the services' database. */
  database: string;
  /** A RabbitMQ administrator (guest on loopback, locally). */
  amqp: string;
  /** A Redis user that may run ACL SETUSER (the default user, locally). */
  redis: string;
}
