import { urlsOf } from './env-schemas';

/**
 * PostgreSQL, Redis and RabbitMQ as an operator meets them: the variable that points a service at
 * each, the address it names (host:port, never the credentials in the URL), and how to start it
 * where it is missing (the service names of docker-compose.yml). tools/preflight.mjs, which `npm
 * start` runs before anything else, says the same for all three (a test keeps the two in step).
 */
export interface Infrastructure {
  readonly name: 'PostgreSQL' | 'Redis' | 'RabbitMQ';
  readonly variable: 'DATABASE_URL' | 'REDIS_URL' | 'AMQP_URL';
  readonly url: string;
  /** Its service in docker-compose.yml. */
  readonly composeService: 'postgres' | 'redis' | 'rabbitmq';
}

export const postgresOf = (config: { DATABASE_URL: string }): Infrastructure => ({
  name: 'PostgreSQL',
  variable: 'DATABASE_URL',
  url: config.DATABASE_URL,
  composeService: 'postgres',
});
export const redisOf = (config: { REDIS_URL: string }): Infrastructure => ({
  name: 'Redis',
  variable: 'REDIS_URL',
  url: config.REDIS_URL,
  composeService: 'redis',
});
export const rabbitMqOf = (config: { AMQP_URL: string }): Infrastructure => ({
  name: 'RabbitMQ',
  variable: 'AMQP_URL',
  url: config.AMQP_URL,
  composeService: 'rabbitmq',
});

/** The protocols' registered ports, for URLs that name none. */
const DEFAULT_PORTS: Record<string, number> = { 'postgresql:': 5432, 'postgres:': 5432, 'redis:': 6379, 'rediss:': 6379, 'amqp:': 5672, 'amqps:': 5671 };

/**
 * Where a service connects to: host and port of each of its URLs (the nodes of a RabbitMQ cluster,
 * when AMQP_URL names several), its credentials out of every message.
 */
export function addressesOf(infrastructure: Infrastructure): { host: string; port: number }[] {
  return urlsOf(infrastructure.url).map((each) => {
    const url = new URL(each);
    return { host: url.hostname.replace(/^\[(.*)\]$/, '$1') || '127.0.0.1', port: Number(url.port) || (DEFAULT_PORTS[url.protocol] ?? 0) };
  });
}

/** The first of `addressesOf`. */
export function addressOf(infrastructure: Infrastructure): { host: string; port: number } {
  const [first] = addressesOf(infrastructure);
  if (!first) throw new Error(`${infrastructure.variable} names no address`);
  return first;
}

/** "PostgreSQL at 127.0.0.1:5432"; "RabbitMQ at 10.0.0.1:5672, 10.0.0.2:5672" for a cluster. */
export function describeInfrastructure(infrastructure: Infrastructure): string {
  const where = addressesOf(infrastructure).map(({ host, port }) => `${host.includes(':') ? `[${host}]` : host}:${port}`);
  return `${infrastructure.name} at ${where.join(', ')}`;
}

/** What to do about it: "start it (`docker compose up -d postgres`) or point DATABASE_URL at a running one". */
export function startHintOf(infrastructure: Infrastructure): string {
  return `start it (\`docker compose up -d ${infrastructure.composeService}\`) or point ${infrastructure.variable} at a running one`;
}
