// Stopping and starting the machine's own PostgreSQL, Redis and RabbitMQ (the fault suite runs as
// root on CI and on the development machine, with the three services local). Every disturbance
// goes through `whileDown`, which starts the service again in `finally` and waits until it really
// answers, so a failing test never leaves the machine without it.
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { promisify } from 'node:util';
import { connect as connectAmqp } from 'amqplib';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { redisServerArgs } from './redis-server.cjs';

const execute = promisify(execFile);

export interface Dependency {
  readonly name: string;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Answers a real request (a query, PING, an AMQP handshake), not just a TCP connect. */
  isUp(): Promise<boolean>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function command(file: string, args: string[]): Promise<void> {
  try {
    await execute(file, args, { timeout: 120_000 });
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`${file} ${args.join(' ')} failed: ${failure.stderr?.trim() || failure.message}`);
  }
}

const urls = () => ({
  postgres: process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
  redis: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  amqp: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
});

/** The cluster `main` of the one PostgreSQL version installed (`ls /etc/postgresql`). */
function pgCtlCluster(action: 'stop' | 'start' | 'restart'): Promise<void> {
  const [version] = readdirSync('/etc/postgresql');
  if (!version) throw new Error('no PostgreSQL cluster under /etc/postgresql');
  return command('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', action]);
}

export const postgres: Dependency & { restart(): Promise<void> } = {
  name: 'PostgreSQL',
  stop: () => pgCtlCluster('stop'),
  start: () => pgCtlCluster('start'),
  restart: () => pgCtlCluster('restart'),
  async isUp() {
    const client = new Client({ connectionString: urls().postgres, connectionTimeoutMillis: 1_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return true;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  },
};

export const redis: Dependency = {
  name: 'Redis',
  async stop() {
    // The connection closes under redis-cli, which may then exit non-zero: judge by isUp instead.
    await command('redis-cli', ['-u', urls().redis, 'shutdown', 'nosave']).catch(() => undefined);
    await waitUntil(async () => !(await redis.isUp()), 'Redis to stop', 10_000);
  },
  start: () => command('redis-server', redisServerArgs(new URL(urls().redis).port || 6379)),
  async isUp() {
    const client = new Redis(urls().redis, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      return (await client.ping()) === 'PONG';
    } catch {
      return false;
    } finally {
      client.disconnect();
    }
  },
};

export const rabbitmq: Dependency = {
  name: 'RabbitMQ',
  stop: () => command('rabbitmqctl', ['stop_app']),
  start: () => command('rabbitmqctl', ['start_app']),
  async isUp() {
    try {
      const connection = await connectAmqp(urls().amqp, { timeout: 2_000 });
      connection.on('error', () => undefined);
      try {
        await (await connection.createChannel()).close();
        return true;
      } finally {
        await connection.close().catch(() => undefined);
      }
    } catch {
      return false;
    }
  },
};

export async function waitUntil(probe: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(200);
  }
}

/** Starts the dependency if it does not answer, and waits until it does. */
export async function restore(dependency: Dependency): Promise<void> {
  if (await dependency.isUp()) return;
  try {
    await dependency.start();
  } catch (error) {
    // Already starting (or started by someone else meanwhile): the wait below decides.
    if (!(await dependency.isUp())) console.warn(`restoring ${dependency.name}: ${(error as Error).message}`);
  }
  await waitUntil(() => dependency.isUp(), `${dependency.name} to answer again`, 120_000);
}

export interface OutageTimes {
  /** When the stop command returned: from here on the dependency is down. */
  downAt: number;
  /** When the start command was issued: until here it was down. */
  startingAt: number;
  /** When it answered again. */
  backAt: number;
}

/**
 * Stops `dependency`, runs `whileStopped` (it gets the time the dependency went down), then starts
 * it again and waits until it answers: in `finally`, so also when `whileStopped` or the stop throws.
 */
export async function whileDown<T>(dependency: Dependency, whileStopped: (downAt: number) => Promise<T>): Promise<{ result: T; times: OutageTimes }> {
  let downAt = 0;
  let startingAt = 0;
  try {
    await dependency.stop();
    downAt = Date.now();
    const result = await whileStopped(downAt);
    startingAt = Date.now();
    await dependency.start();
    await waitUntil(() => dependency.isUp(), `${dependency.name} to answer again`, 120_000);
    return { result, times: { downAt, startingAt, backAt: Date.now() } };
  } finally {
    await restore(dependency);
  }
}
