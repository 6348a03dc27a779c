// `npm run test:faults` only: before the shared set-up (tools/jest/global-setup.cjs: the run's own
// database, broker namespace and Redis prefix), make sure this machine can take the faults: the
// suite stops and starts the local PostgreSQL, Redis and RabbitMQ itself, so they must be the local
// services (not testcontainers) and their control commands must be at hand. Any of them found down
// (a run that was killed in the middle of a fault) is started first. Then the services are built
// once for the whole suite: every fault runs them as processes from dist.
'use strict';

const { execFileSync, spawnSync } = require('node:child_process');
const { existsSync, readdirSync } = require('node:fs');
const net = require('node:net');
const { join } = require('node:path');
const sharedSetup = require('../jest/global-setup.cjs');
const { redisServerArgs } = require('./support/redis-server.cjs');

const root = join(__dirname, '..', '..');

function listening(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('timeout', () => (socket.destroy(), resolve(false)));
    socket.once('error', () => resolve(false));
  });
}

async function waitForPort(name, port, seconds) {
  for (let second = 0; second < seconds; second++) {
    if (await listening(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  throw new Error(`faults: ${name} did not come up on port ${port}`);
}

function commandExists(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

module.exports = async function faultsGlobalSetup() {
  for (const variable of ['TEST_POSTGRES_URL', 'TEST_REDIS_URL', 'TEST_AMQP_URL']) {
    const value = process.env[variable];
    if (value && !['127.0.0.1', 'localhost'].includes(new URL(value).hostname)) {
      throw new Error(`faults: ${variable} points at ${new URL(value).hostname}; the fault suite stops and starts the local services only`);
    }
  }
  const missing = ['pg_ctlcluster', 'redis-cli', 'redis-server', 'rabbitmqctl'].filter((command) => !commandExists(command));
  if (missing.length || !existsSync('/etc/postgresql') || process.getuid?.() !== 0) {
    throw new Error(
      `faults: needs root and the local PostgreSQL, Redis and RabbitMQ with their commands (missing: ${missing.join(', ') || 'none'}; root: ${process.getuid?.() === 0})`,
    );
  }

  if (!(await listening(5432))) {
    const [version] = readdirSync('/etc/postgresql');
    execFileSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
  }
  if (!(await listening(6379))) {
    execFileSync('redis-server', redisServerArgs(6379), { stdio: 'inherit' });
  }
  if (!(await listening(5672))) {
    // The node may run with its application stopped (a fault interrupted mid-way) or not at all.
    const started = spawnSync('rabbitmqctl', ['start_app'], { stdio: 'ignore' });
    if (started.status !== 0) spawnSync('rabbitmq-server', ['-detached'], { stdio: 'inherit' });
  }
  await waitForPort('PostgreSQL', 5432, 60);
  await waitForPort('Redis', 6379, 30);
  await waitForPort('RabbitMQ', 5672, 120);

  await sharedSetup();

  const build = spawnSync('nx', ['run-many', '-t', 'build', '--outputStyle=static'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' },
  });
  if (build.status !== 0) throw new Error('faults: the build (nx run-many -t build) failed');
};
