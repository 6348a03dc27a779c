// Runs once before all tests, in jest's parent process; workers inherit the environment set here.
//
// Every run gets its own database, broker namespace and Redis key prefix, so concurrent runs on
// one machine (two developers, CI and a developer) never see each other's data. The local services
// are used when they answer; otherwise, where a Docker engine is reachable, testcontainers starts
// them.
const net = require('node:net');
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');

const defaults = {
  postgres: { env: 'TEST_POSTGRES_URL', url: 'postgresql://postgres@127.0.0.1:5432/postgres' },
  redis: { env: 'TEST_REDIS_URL', url: 'redis://127.0.0.1:6379' },
  rabbitmq: { env: 'TEST_AMQP_URL', url: 'amqp://guest:guest@127.0.0.1:5672' },
};

function reachable(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port) });
    socket.setTimeout(1_000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
  });
}

async function startContainer(name) {
  let testcontainers;
  try {
    testcontainers = require('testcontainers');
    await testcontainers.getContainerRuntimeClient();
  } catch (error) {
    throw new Error(
      `${name} is not reachable at ${defaults[name].url} and no Docker engine is available for testcontainers ` +
        `(${error.message}). Start it (see README, "The two commands").`,
    );
  }
  if (name === 'postgres') {
    const { PostgreSqlContainer } = require('@testcontainers/postgresql');
    const container = await new PostgreSqlContainer('postgres:16-alpine').withUsername('postgres').withPassword('postgres').start();
    return { container, url: container.getConnectionUri().replace(/\/[^/]*$/, '/postgres') };
  }
  if (name === 'redis') {
    const { RedisContainer } = require('@testcontainers/redis');
    const container = await new RedisContainer('redis:7-alpine').start();
    return { container, url: container.getConnectionUrl() };
  }
  const { RabbitMQContainer } = require('@testcontainers/rabbitmq');
  const container = await new RabbitMQContainer('rabbitmq:3.13-management-alpine').start();
  return { container, url: container.getAmqpUrl() };
}

module.exports = async function globalSetup() {
  const runId = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const urls = {};
  globalThis.__testContainers = [];
  for (const [name, { env, url }] of Object.entries(defaults)) {
    const configured = process.env[env] || url;
    if (await reachable(configured)) {
      urls[name] = configured;
      continue;
    }
    const started = await startContainer(name);
    globalThis.__testContainers.push(started.container);
    urls[name] = started.url;
  }

  const database = `bedrequest_test_${runId}`;
  const admin = new Client({ connectionString: urls.postgres });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${database}"`);
  await admin.end();

  const databaseUrl = new URL(urls.postgres);
  databaseUrl.pathname = `/${database}`;
  Object.assign(process.env, {
    NODE_ENV: 'test',
    TEST_RUN_ID: runId,
    TEST_POSTGRES_URL: urls.postgres,
    DATABASE_URL: databaseUrl.toString(),
    REDIS_URL: urls.redis,
    REDIS_KEY_PREFIX: `test:${runId}:`,
    AMQP_URL: urls.rabbitmq,
    AMQP_NAMESPACE: `t${runId}`,
    LOG_LEVEL: process.env.LOG_LEVEL || 'silent',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
};
