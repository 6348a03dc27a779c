// `npm run test:faults` only: before the shared set-up (tools/jest/global-setup.cjs: the run's own
// database, broker namespace and Redis prefix), start the PostgreSQL, Redis and RabbitMQ of this
// run's own that the faults stop and start (support/private-services.cjs), and point the run at
// them. The machine's services are not touched, so `npm test` may run meanwhile (.ci/run does).
// Then the services are built once for the whole suite: every fault runs them as processes from
// dist (unless TEST_SKIP_BUILD says the caller built them already, as .ci/run does before it starts
// the tests and the faults side by side: a build replaces dist while the other run starts services from it).
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { existsSync, readdirSync } = require('node:fs');
const { join } = require('node:path');
const sharedSetup = require('../jest/global-setup.cjs');
const { removePrivateServices, startPrivateServices, urlsOf } = require('./support/private-services.cjs');

const root = join(__dirname, '..', '..');

function commandExists(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

function build() {
  const child = spawn('nx', ['run-many', '-t', 'build', '--outputStyle=static'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error('faults: the build (nx run-many -t build) failed'))));
  });
}

module.exports = async function faultsGlobalSetup() {
  const missing = ['runuser', 'redis-cli', 'redis-server', 'rabbitmq-server', 'rabbitmqctl'].filter((command) => !commandExists(command));
  const postgres = existsSync('/usr/lib/postgresql') && readdirSync('/usr/lib/postgresql').length > 0;
  if (missing.length || !postgres || process.getuid?.() !== 0) {
    throw new Error(
      `faults: needs root and the commands of PostgreSQL (/usr/lib/postgresql), Redis and RabbitMQ to start services of its own (missing: ${[...missing, ...(postgres ? [] : ['PostgreSQL'])].join(', ') || 'none'}; root: ${process.getuid?.() === 0})`,
    );
  }

  // The build (when wanted) beside the services' start, which mostly waits for theirs.
  const building = process.env.TEST_SKIP_BUILD ? Promise.resolve() : build();
  // Not left unhandled while the services start; awaited below.
  building.catch(() => undefined);
  const services = await startPrivateServices();
  try {
    const urls = urlsOf(services);
    Object.assign(process.env, {
      FAULTS_SERVICES: services.folder,
      TEST_POSTGRES_URL: urls.postgres,
      TEST_REDIS_URL: urls.redis,
      TEST_AMQP_URL: urls.amqp,
      // Every `rabbitmqctl` of the run (provisioning, a stack's clean-up, the faults' own) then talks to
      // the run's node: the command reads the node's name from here when no -n is given.
      RABBITMQ_NODENAME: services.rabbitmq.node,
    });
    await sharedSetup();
    await building;
  } catch (error) {
    removePrivateServices(services);
    throw error;
  }
};
