// `npm run test:faults`: the fault-injection suite (tools/faults/*.faults.spec.ts), kept out of
// `npm test`. It kills services with SIGKILL and stops and starts PostgreSQL, Redis and RabbitMQ (the
// run's own, started by its set-up and removed by its teardown), so its files run one after the
// other in one process (maxWorkers 1): two faults on the same services at once would make both
// unreadable. Same compilation and per-run isolation as the integration tier of jest.config.cjs;
// its own set-up adds the services and the build the faults need.
const base = require('./jest.config.cjs');

module.exports = {
  testEnvironment: '<rootDir>/tools/faults/faults-environment.cjs',
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  moduleNameMapper: base.moduleNameMapper,
  roots: ['<rootDir>/tools/faults'],
  testMatch: ['**/*.faults.spec.ts'],
  globalSetup: '<rootDir>/tools/faults/global-setup.cjs',
  globalTeardown: '<rootDir>/tools/faults/global-teardown.cjs',
  reporters: ['default', '<rootDir>/tools/faults/figures-reporter.cjs'],
  maxWorkers: 1,
  testTimeout: 300_000,
  // side-by-side.faults.spec.ts runs its six faults at once.
  maxConcurrency: 6,
};
