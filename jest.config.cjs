// `npm test` runs both tiers; `npm run test:unit` and `npm run test:integration` run one (jest
// --selectProjects; the `--config` after it in package.json ends its list of project names, so that
// `npm run test:unit -- <path pattern>` is read as a path pattern, not as a second project).
//
// - unit: every *.spec.ts that is not *.int.spec.ts. Runs in seconds on a machine without
//   PostgreSQL, Redis or RabbitMQ: no global set-up, and no unit test opens a connection to them
//   (stand-ins for the HTTP services they call run in the test's own process).
// - integration: the *.int.spec.ts, against the real PostgreSQL, Redis and RabbitMQ, each run with
//   its own database, broker namespace and Redis key prefix (tools/jest/global-setup.cjs). Jest
//   runs a project's global set-up only when one of its tests is selected.
const { compilerOptions } = require('./tsconfig.base.json');

const moduleNameMapper = Object.fromEntries(Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]));

/** How every tier (and jest.faults.config.cjs) compiles and resolves the sources. */
const compilation = {
  // Jest's node environment with a require of the worker process, for what every test file needs
  // and is costly to set up (tools/jest/node-environment.cjs).
  testEnvironment: '<rootDir>/tools/jest/node-environment.cjs',
  transform: {
    '^.+\\.[cm]?[tj]s$': ['@swc/jest', { jsc: { target: 'es2023', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' } }],
  },
  // ESM-only packages jest must compile to CommonJS (Node itself loads them with require(esm)).
  transformIgnorePatterns: ['/node_modules/(?!(p-retry|is-network-error|jose)/)'],
  moduleNameMapper,
};

const roots = ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools', '<rootDir>/bench'];
// The fault-injection suite stops shared services: only `npm run test:faults` runs it.
const ignored = ['/node_modules/', '\\.faults\\.spec\\.ts$'];

module.exports = {
  ...compilation,
  projects: [
    {
      ...compilation,
      displayName: 'unit',
      roots,
      testMatch: ['**/*.spec.ts'],
      testPathIgnorePatterns: [...ignored, '\\.int\\.spec\\.ts$'],
    },
    {
      ...compilation,
      displayName: 'integration',
      roots,
      testMatch: ['**/*.int.spec.ts'],
      testPathIgnorePatterns: ignored,
      globalSetup: '<rootDir>/tools/jest/global-setup.cjs',
      globalTeardown: '<rootDir>/tools/jest/global-teardown.cjs',
    },
  ],
  // A run-wide option (jest ignores it inside a project): the integration tests start processes.
  testTimeout: 60_000,
  // Integration tests share one machine's broker and database; two workers keep both cores busy.
  maxWorkers: 2,
};
