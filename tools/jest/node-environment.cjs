// The environment of every test file (jest.config.cjs, jest.faults.config.cjs): jest's node
// environment, and one way past the module registry jest gives each test file.
//
// A module a test file requires is loaded and set up again for every file, even when all of them
// need the same thing: the outside FHIR validator's indexed R4 definitions take about two seconds
// per file (libs/testing/src/fhir-validator.ts). `globalThis.__workerRequire` is Node's own
// `require` of the worker process, outside jest's registry, mocks and transforms: what it loads is
// set up once per worker and kept for every later file the worker runs. It is for plain CommonJS
// modules whose state no test changes, and a test file's objects do not cross into them (they are
// cloned at the border: libs/testing/src/fhir-definitions.cjs).
'use strict';

const { TestEnvironment } = require('jest-environment-node');

class NodeEnvironmentWithWorkerRequire extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    Object.defineProperty(this.global, '__workerRequire', { value: (id) => require(id) });
  }
}

module.exports = NodeEnvironmentWithWorkerRequire;
