// What `npm start` checks before it builds or starts anything: PostgreSQL, Redis and RabbitMQ, at
// the addresses the services will use (the same variables and defaults as their configuration; a
// test keeps the defaults in step), each with a real handshake: `SELECT 1`, `PING`, an AMQP
// connection. One line per piece that fails, saying where it was looked for and what to do.
import amqp from 'amqplib';
import { Redis } from 'ioredis';
import pg from 'pg';

/** A closed port refuses at once; an address nobody answers at is given up after this. */
const HANDSHAKE_TIMEOUT_MS = 3_000;

/**
 * The three, as the services' configuration names them: libs/config's DATABASE_URL and AMQP_URL,
 * apps/auth's REDIS_URL (defaults: the local services), and their services in docker-compose.yml.
 */
export const INFRASTRUCTURE = [
  {
    name: 'PostgreSQL',
    variable: 'DATABASE_URL',
    fallback: 'postgresql://postgres@127.0.0.1:5432/bedrequest',
    composeService: 'postgres',
    defaultPort: 5432,
    handshake: postgresHandshake,
  },
  { name: 'Redis', variable: 'REDIS_URL', fallback: 'redis://127.0.0.1:6379', composeService: 'redis', defaultPort: 6379, handshake: redisHandshake },
  {
    name: 'RabbitMQ',
    variable: 'AMQP_URL',
    fallback: 'amqp://guest:guest@127.0.0.1:5672',
    composeService: 'rabbitmq',
    defaultPort: 5672,
    handshake: rabbitMqHandshake,
  },
];

/** Errors of the network (nothing there, or no answer), as opposed to a server that answered and refused. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'TIMEOUT']);

/**
 * Checks all three at once; resolves with one line per failure (none: all answered). Credentials
 * in the URLs never appear in a line: it names host and port only.
 */
export async function checkInfrastructure(env = process.env) {
  const results = await Promise.all(
    INFRASTRUCTURE.map(async (piece) => {
      const value = env[piece.variable] || piece.fallback;
      // AMQP_URL may name a broker cluster's nodes, comma-separated: npm start checks the first.
      const url = new URL(piece.variable === 'AMQP_URL' ? value.split(',')[0] : value);
      const where = `${piece.name} at ${url.hostname}:${url.port || piece.defaultPort}`;
      try {
        await piece.handshake(url, HANDSHAKE_TIMEOUT_MS);
        return undefined;
      } catch (error) {
        const reason = String(error?.message ?? error).split('\n')[0];
        return UNREACHABLE.has(error?.code)
          ? `${where} is not reachable (${reason}): start it (\`docker compose up -d ${piece.composeService}\`) or point ${piece.variable} at a running one`
          : `${where} refused the connection (${reason}): check ${piece.variable}`;
      }
    }),
  );
  return results.filter((line) => line !== undefined);
}

/** Runs `check` within `timeoutMs` (the clients' own timeouts do not all cover the whole handshake). */
async function within(timeoutMs, check) {
  let timer;
  const timeout = new Promise((_resolve, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: 'TIMEOUT' })), timeoutMs);
  });
  try {
    return await Promise.race([check(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The server's maintenance database (the services create theirs if missing): connect, `SELECT 1`. */
async function postgresHandshake(url, timeoutMs) {
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.toString(), connectionTimeoutMillis: timeoutMs + 1_000 });
  client.on('error', () => undefined);
  try {
    await within(timeoutMs, async () => {
      await client.connect();
      await client.query('SELECT 1');
    });
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Connect without retrying, `PING`. */
async function redisHandshake(url, timeoutMs) {
  const redis = new Redis(url.toString(), {
    lazyConnect: true,
    connectTimeout: timeoutMs + 1_000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // Without retries, connect() rejects with "Connection is closed."; the reason came as an event before.
  let failure;
  redis.on('error', (error) => (failure = error));
  try {
    await within(timeoutMs, async () => {
      await redis.connect().catch((error) => Promise.reject(failure ?? error));
      await redis.ping();
    });
  } finally {
    // After a refused connection it has ended already; disconnect() would arm a 2 s timer for nothing.
    if (redis.status !== 'end') redis.disconnect();
  }
}

/** An AMQP connection (protocol header, authentication, tuning), closed again. */
async function rabbitMqHandshake(url, timeoutMs) {
  const connection = await within(timeoutMs, () => amqp.connect(url.toString(), { timeout: timeoutMs + 1_000 }));
  connection.on('error', () => undefined);
  await connection.close().catch(() => undefined);
}
