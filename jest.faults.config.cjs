// `npm run test:faults`: the fault-injection suite (tools/faults/*.faults.spec.ts), kept out of
// `npm test`. It kills services with SIGKILL and stops and starts the machine's PostgreSQL, Redis
// and RabbitMQ, so its files run one after the other in one process (maxWorkers 1): two faults on
// shared services at once would make both unreadable. Same compilation and per-run isolation as
// the integration tier of jest.config.cjs; its own set-up adds the checks and the build the faults need.
const base = require('./jest.config.cjs');

const integration = base.projects.find((project) => project.displayName === 'integration');

module.exports = {
  testEnvironment: base.testEnvironment,
  transform: base.transform,
  transformIgnorePatterns: base.transformIgnorePatterns,
  moduleNameMapper: base.moduleNameMapper,
  roots: ['<rootDir>/tools/faults'],
  testMatch: ['**/*.faults.spec.ts'],
  globalSetup: '<rootDir>/tools/faults/global-setup.cjs',
  globalTeardown: integration.globalTeardown,
  reporters: ['default', '<rootDir>/tools/faults/figures-reporter.cjs'],
  maxWorkers: 1,
  testTimeout: 300_000,
  // side-by-side.faults.spec.ts runs its six faults at once.
  maxConcurrency: 6,
};
