// `npm run test:faults`: removes the run's own PostgreSQL, Redis and RabbitMQ with everything in them
// (support/private-services.cjs), so nothing of the shared teardown's (tools/jest/global-teardown.cjs:
// the run's database, users and keys on the machine's services) is left to do but the mark of the build.
'use strict';

const { rmSync } = require('node:fs');
const { join } = require('node:path');
const { removePrivateServices, servicesOfRun } = require('./support/private-services.cjs');

module.exports = async function faultsGlobalTeardown() {
  rmSync(join(__dirname, '..', '..', 'dist', `.built-${process.env.TEST_RUN_ID}`), { force: true });
  removePrivateServices(servicesOfRun());
};
