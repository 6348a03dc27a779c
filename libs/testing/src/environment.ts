import { randomBytes } from 'node:crypto';

/** What tools/jest/global-setup.cjs prepared for this test run. */
export function testEnvironment() {
  const required = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set: run the tests with \`npm test\``);
    return value;
  };
  return {
    runId: required('TEST_RUN_ID'),
    databaseUrl: required('DATABASE_URL'),
    amqpUrl: required('AMQP_URL'),
    amqpNamespace: required('AMQP_NAMESPACE'),
    redisUrl: required('REDIS_URL'),
    redisKeyPrefix: required('REDIS_KEY_PREFIX'),
  };
}

/** A name unique to this run and call, e.g. for a test's own broker namespace or DB schema. */
export function uniqueName(label: string): string {
  return `${process.env.AMQP_NAMESPACE ?? 'test'}_${label}_${randomBytes(3).toString('hex')}`.toLowerCase();
}
