// One jest run for every project: unit tests (*.spec.ts) and integration tests (*.int.spec.ts)
// against the real PostgreSQL, Redis and RabbitMQ (see tools/jest/global-setup.cjs).
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools'],
  testMatch: ['**/*.spec.ts'],
  // The fault-injection suite stops shared services: only `npm run test:faults` runs it.
  testPathIgnorePatterns: ['/node_modules/', '\\.faults\\.spec\\.ts$'],
  transform: {
    '^.+\\.[cm]?[tj]s$': [
      '@swc/jest',
      { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } },
    ],
  },
  // ESM-only packages jest must compile to CommonJS (Node itself loads them with require(esm)).
  transformIgnorePatterns: ['/node_modules/(?!(p-retry|is-network-error|jose)/)'],
  moduleNameMapper,
  globalSetup: '<rootDir>/tools/jest/global-setup.cjs',
  globalTeardown: '<rootDir>/tools/jest/global-teardown.cjs',
  testTimeout: 60_000,
  // Integration tests share one machine's broker and database; two workers keep both cores busy.
  maxWorkers: 2,
};
