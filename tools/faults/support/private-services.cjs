// The fault suite's own PostgreSQL, Redis and RabbitMQ: started by its global set-up, stopped and
// started by its faults (infrastructure.ts), removed by its teardown. The machine's services stay as
// they are, so `npm test` (and anyone else's tests) can run beside the faults (.ci/run). Each run's
// services live in a folder of their own under the temporary directory, with a services.json that
// says what runs there and which process owns it; a run that was killed leaves its folder behind, and
// the next set-up (or `node private-services.cjs reap`) stops what it finds there and removes it.
// Plain CommonJS, so that global-setup.cjs, the teardown, infrastructure.ts and .ci/run share it.
'use strict';

const { execFile, execFileSync } = require('node:child_process');
const {
  appendFileSync,
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { promisify } = require('node:util');

const execute = promisify(execFile);
const FOLDER_PREFIX = 'bedrequest-faults-';
const STATE_FILE = 'services.json';

/**
 * The JEST_WORKER_ID the suite's tests run as (faults-environment.cjs), and so the slice of
 * freePort()'s range (libs/testing/src/free-port.ts: 10000 + 625 × (id mod 16)) their ports come
 * from: npm test's two workers have 1 and 2. The services here take theirs from the same slice,
 * below the ephemeral range, where a port is taken only by someone asking for it by number: the
 * faults stop them and start them again on the same port.
 */
const PORT_SLICE_WORKER_ID = '8';
const PORT_RANGE = { from: 10_000 + 625 * (Number(PORT_SLICE_WORKER_ID) % 16), count: 625 };

const postgresBin = (() => {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort().pop() : undefined;
  return version ? join(root, version, 'bin') : '/usr/lib/postgresql/bin';
})();

function isFree(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `count` ports of the slice that were free when asked, from a random start. */
async function freePorts(count) {
  const ports = [];
  const start = Math.floor(Math.random() * PORT_RANGE.count);
  for (let step = 0; step < PORT_RANGE.count && ports.length < count; step++) {
    const port = PORT_RANGE.from + ((start + step) % PORT_RANGE.count);
    if (await isFree(port)) ports.push(port);
  }
  if (ports.length < count) throw new Error(`faults: no ${count} free ports in ${PORT_RANGE.from}–${PORT_RANGE.from + PORT_RANGE.count - 1}`);
  return ports;
}

const idOf = (user, flag) => Number(execFileSync('id', [flag, user], { encoding: 'utf8' }));

/** Its start time in clock ticks since boot (field 22 of /proc/<pid>/stat): a pid used again by another process has another. */
function startTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

// ---- how each service is started and stopped (also for infrastructure.ts's faults) ----

/** `pg_ctl <action>` of the run's cluster, as its owner (`runuser -u postgres`): the command and its arguments. */
function pgCtlCommand(services, action) {
  const { data, log } = services.postgres;
  return ['runuser', ['-u', 'postgres', '--', join(postgresBin, 'pg_ctl'), '-D', data, '-l', log, '-w', '-t', '60', '-m', 'fast', action]];
}

/** `redis-server` of the run's Redis: no persistence, loopback only, as .ci/run starts the machine's. */
function redisServerCommand(services) {
  const { port, dir } = services.redis;
  const args = ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'];
  return ['redis-server', [...args, '--dir', dir, '--logfile', join(dir, 'redis.log'), '--pidfile', join(dir, 'redis.pid')]];
}

/** `rabbitmqctl -n <the run's node> ...args`. */
function rabbitmqctlCommand(services, ...args) {
  return ['rabbitmqctl', ['-n', services.rabbitmq.node, ...args]];
}

/**
 * The node's own name, distribution port, data, log and configuration (as libs/testing's RabbitMqNode
 * starts one): the machine's /etc/rabbitmq/rabbitmq.conf would give it 5672, so it has a listener of
 * its own.
 */
function rabbitmqEnvironment(services) {
  const { node, distPort, dir } = services.rabbitmq;
  return {
    ...process.env,
    RABBITMQ_NODENAME: node,
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
    RABBITMQ_LOG_BASE: join(dir, 'log'),
    RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
    RABBITMQ_PID_FILE: join(dir, 'rabbitmq.pid'),
  };
}

async function run(command, options = {}) {
  const [file, args] = command;
  try {
    return (await execute(file, args, { timeout: 120_000, ...options })).stdout;
  } catch (error) {
    throw new Error(`faults: ${file} ${args.join(' ')} failed: ${error.stderr?.trim() || error.message}`);
  }
}

async function startPostgres(services) {
  const { dir, data, port } = services.postgres;
  execFileSync('install', ['-d', '-m', '700', '-o', 'postgres', '-g', 'postgres', dir]);
  await run([
    'runuser',
    [
      '-u',
      'postgres',
      '--',
      join(postgresBin, 'initdb'),
      '-D',
      data,
      '--auth=trust',
      '--username=postgres',
      '--encoding=UTF8',
      '--locale=C.UTF-8',
      '--no-sync',
    ],
  ]);
  // As the machine's cluster is set up for the tests (max_connections 100, autovacuum off), on its own port and socket folder.
  const settings = [`port = ${port}`, "listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`, 'max_connections = 100', 'autovacuum = off'];
  appendFileSync(join(data, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
  await run(pgCtlCommand(services, 'start'));
}

async function startRedis(services) {
  mkdirSync(services.redis.dir);
  await run(redisServerCommand(services));
}

async function startRabbitMq(services) {
  const { dir, amqpPort } = services.rabbitmq;
  for (const sub of ['', 'mnesia', 'log']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'rabbitmq.conf'), `listeners.tcp.local = 127.0.0.1:${amqpPort}\n`);
  writeFileSync(join(dir, 'enabled_plugins'), '[].\n');
  const [uid, gid] = [idOf('rabbitmq', '-u'), idOf('rabbitmq', '-g')];
  for (const path of [dir, ...['mnesia', 'log', 'rabbitmq.conf', 'enabled_plugins'].map((name) => join(dir, name))]) chownSync(path, uid, gid);
  const start = async () => {
    await run(['rabbitmq-server', ['-detached']], { env: rabbitmqEnvironment(services), timeout: 60_000 });
    await run(rabbitmqctlCommand(services, 'wait', join(dir, 'rabbitmq.pid'), '--timeout', '90'));
  };
  try {
    await start();
  } catch (error) {
    // On a busy machine a first boot sometimes gives up (as RabbitMqNode.startOrRetry knows): once more.
    console.warn(`${error.message}; starting the node once more`);
    killFromPidFile(join(dir, 'rabbitmq.pid'));
    await start();
  }
}

/** Starts PostgreSQL, Redis and RabbitMQ of this run's own, each on a free port; removes the stale ones of killed runs first. */
async function startPrivateServices() {
  reapStale();
  const folder = mkdtempSync(join(tmpdir(), FOLDER_PREFIX));
  // PostgreSQL's and RabbitMQ's users reach their folders below it.
  chmodSync(folder, 0o755);
  const [postgresPort, redisPort, amqpPort, distPort] = await freePorts(4);
  const services = {
    folder,
    owner: { pid: process.pid, startTicks: startTicks(process.pid) },
    postgres: { port: postgresPort, dir: join(folder, 'postgres'), data: join(folder, 'postgres', 'data'), log: join(folder, 'postgres', 'log') },
    redis: { port: redisPort, dir: join(folder, 'redis') },
    rabbitmq: { node: `faults${distPort}@localhost`, amqpPort, distPort, dir: join(folder, 'rabbitmq') },
  };
  // Written before anything starts: a run killed from here on leaves what the next one needs to stop.
  writeFileSync(join(folder, STATE_FILE), JSON.stringify(services, null, 2));
  const started = await Promise.allSettled([startPostgres(services), startRedis(services), startRabbitMq(services)]);
  const failed = started.find((result) => result.status === 'rejected');
  if (failed) {
    removePrivateServices(services);
    throw failed.reason;
  }
  return services;
}

/** The URLs of the run's services, with the administrators the tests use (as tools/jest/global-setup.cjs's defaults). */
function urlsOf(services) {
  return {
    postgres: `postgresql://postgres@127.0.0.1:${services.postgres.port}/postgres`,
    redis: `redis://127.0.0.1:${services.redis.port}`,
    amqp: `amqp://guest:guest@127.0.0.1:${services.rabbitmq.amqpPort}`,
  };
}

/** The services of the run this process belongs to (FAULTS_SERVICES, set by the global set-up). */
function servicesOfRun() {
  const folder = process.env.FAULTS_SERVICES;
  if (!folder) throw new Error('FAULTS_SERVICES is not set: run the fault suite with `npm run test:faults`');
  return JSON.parse(readFileSync(join(folder, STATE_FILE), 'utf8'));
}

/** Whether it runs (a zombie runs no more). */
function isAlive(pid) {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** SIGKILL to the process whose id is the file's first line, and waits until it is gone (at most 10 s). */
function killFromPidFile(file) {
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
  if (!pid) return;
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
  for (let waited = 0; waited < 10_000 && isAlive(pid); waited += 50) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
}

/** Stops the run's services at once (nothing of them is kept) and removes their folder. */
function removePrivateServices(services) {
  const { data } = services.postgres;
  if (existsSync(join(data, 'postmaster.pid'))) {
    try {
      execFileSync('runuser', ['-u', 'postgres', '--', join(postgresBin, 'pg_ctl'), '-D', data, '-m', 'immediate', '-w', 'stop'], { stdio: 'ignore' });
    } catch {
      killFromPidFile(join(data, 'postmaster.pid'));
    }
  }
  killFromPidFile(join(services.redis.dir, 'redis.pid'));
  killFromPidFile(join(services.rabbitmq.dir, 'rabbitmq.pid'));
  rmSync(services.folder, { recursive: true, force: true });
}

/**
 * Removes the services of runs whose process is gone (killed before their teardown); a folder without
 * services.json only when it is older than ten minutes (a run may be creating it right now).
 */
function reapStale() {
  for (const name of readdirSync(tmpdir()).filter((entry) => entry.startsWith(FOLDER_PREFIX))) {
    const folder = join(tmpdir(), name);
    try {
      const stateFile = join(folder, STATE_FILE);
      if (!existsSync(stateFile)) {
        if (Date.now() - statSync(folder).mtimeMs > 10 * 60_000) rmSync(folder, { recursive: true, force: true });
        continue;
      }
      const services = JSON.parse(readFileSync(stateFile, 'utf8'));
      if (services.owner.startTicks !== undefined && startTicks(services.owner.pid) === services.owner.startTicks) continue;
      removePrivateServices(services);
      console.warn(`faults: removed the services a killed run left in ${folder}`);
    } catch (error) {
      console.warn(`faults: could not remove ${folder}: ${error.message}`);
    }
  }
}

module.exports = {
  PORT_SLICE_WORKER_ID,
  startPrivateServices,
  removePrivateServices,
  reapStale,
  servicesOfRun,
  urlsOf,
  pgCtlCommand,
  redisServerCommand,
  rabbitmqctlCommand,
};

// `node tools/faults/support/private-services.cjs reap`: .ci/run, after it stopped a fault run early.
if (require.main === module && process.argv[2] === 'reap') reapStale();
