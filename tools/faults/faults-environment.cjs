// The fault suite's test environment: every test file's (tools/jest/node-environment.cjs), run as
// jest worker PORT_SLICE_WORKER_ID. The suite runs in band (maxWorkers 1), where jest names its one
// worker 1, as `npm test` names its first; freePort() (libs/testing) gives each JEST_WORKER_ID a
// slice of its range, and beside `npm test` (.ci/run) the two would hand out the same ports.
'use strict';

const NodeEnvironmentWithWorkerRequire = require('../jest/node-environment.cjs');
const { PORT_SLICE_WORKER_ID } = require('./support/private-services.cjs');

class FaultsEnvironment extends NodeEnvironmentWithWorkerRequire {
  constructor(config, context) {
    super(config, context);
    this.global.process.env.JEST_WORKER_ID = PORT_SLICE_WORKER_ID;
  }
}

module.exports = FaultsEnvironment;
