import { z } from 'zod';
import { baseServiceEnv } from './base-service';
import { ConfigError, loadConfig } from './load-config';
import { configSchema } from './production-rule';
import { dataKeyEnv, databaseEnv, redisEnv, serviceClientEnv } from './shared-env';

/** A service that reads every variable production insists on: the broker, a database, Redis, a KEK and the client secret. */
const Schema = configSchema({ ...baseServiceEnv, ...databaseEnv('SOME_DB_SCHEMA', 'some'), ...redisEnv, ...dataKeyEnv, ...serviceClientEnv });
const SECRET = 'a'.repeat(32);
const KEK = Buffer.alloc(32, 7).toString('base64');

function problemsOf(source: Record<string, string>): string[] {
  try {
    loadConfig(Schema, source);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message.split('\n').slice(1);
  }
}

describe('the production rule', () => {
  it.each([
    ['an unset', {}],
    ['a blank', { NODE_ENV: '' }],
    ['a whitespace', { NODE_ENV: ' ' }],
  ])('reads %s NODE_ENV as production', (_case, nodeEnv: Record<string, string>) => {
    const production = {
      AMQP_URL: 'amqps://intake:pw@broker:5671',
      DATABASE_URL: 'postgresql://intake:pw@db/bedrequest',
      REDIS_URL: 'rediss://intake:pw@redis:6379',
    };
    expect(loadConfig(Schema, { ...nodeEnv, ...production, DATA_KEK: KEK, SERVICE_CLIENT_SECRET: SECRET })).toMatchObject({
      NODE_ENV: 'production',
      ...production,
    });
  });

  it('stops a production start without its secrets and connection URLs with one line per missing variable, naming it', () => {
    for (const environment of [{}, { NODE_ENV: 'production' }, { NODE_ENV: '' }] as Record<string, string>[]) {
      expect(problemsOf(environment)).toEqual([
        "  AMQP_URL: required in production: the RabbitMQ URL with the service's own user and password (amqps://user:password@host:5671), or one per node of a cluster, comma-separated",
        "  DATABASE_URL: required in production: the PostgreSQL URL with the service's own user and password (postgresql://user:password@host:5432/bedrequest?sslmode=verify-full)",
        "  REDIS_URL: required in production: the Redis URL with the service's own user and password (rediss://user:password@host:6379)",
        '  DATA_KEK: required in production: base64 of 32 random bytes (e.g. `openssl rand -base64 32`), from a secret store',
        '  SERVICE_CLIENT_SECRET: required: the service client secret shared by the services and auth (at least 32 characters, e.g. `openssl rand -hex 32`)',
      ]);
    }
  });

  it('takes an empty or blank value for unset in production', () => {
    const set = { AMQP_URL: 'amqps://broker', REDIS_URL: 'rediss://redis', DATA_KEK: KEK, SERVICE_CLIENT_SECRET: SECRET };
    expect(problemsOf({ ...set, DATABASE_URL: '' })).toEqual([expect.stringMatching(/^ {2}DATABASE_URL: required in production: /)]);
    expect(problemsOf({ ...set, DATABASE_URL: 'postgresql://db/bedrequest', DATA_KEK: '  ' })).toEqual([
      expect.stringMatching(/^ {2}DATA_KEK: required in production: /),
    ]);
  });

  it('still checks a value production was given', () => {
    expect(
      problemsOf({
        AMQP_URL: 'http://broker',
        DATABASE_URL: 'postgresql://db/bedrequest',
        REDIS_URL: 'rediss://redis',
        DATA_KEK: 'short',
        SERVICE_CLIENT_SECRET: SECRET,
      }),
    ).toEqual([
      '  AMQP_URL: must be a URL with protocol amqp: or amqps:, or several separated by commas',
      '  DATA_KEK: must be base64 of 32 random bytes (e.g. `openssl rand -base64 32`)',
    ]);
  });

  it('takes the nodes of a broker cluster as several AMQP URLs, comma-separated, and checks each', () => {
    const set = { DATABASE_URL: 'postgresql://db/bedrequest', REDIS_URL: 'rediss://redis', DATA_KEK: KEK, SERVICE_CLIENT_SECRET: SECRET };
    const cluster = 'amqps://intake:pw@mq-0:5671,amqps://intake:pw@mq-1:5671, amqps://intake:pw@mq-2:5671';
    expect(loadConfig(Schema, { ...set, AMQP_URL: cluster }).AMQP_URL).toBe(cluster);
    expect(problemsOf({ ...set, AMQP_URL: 'amqps://intake:pw@mq-0:5671,mq-1:5671' })).toEqual([
      '  AMQP_URL: must be a URL with protocol amqp: or amqps:, or several separated by commas',
    ]);
    expect(problemsOf({ ...set, AMQP_URL: ' , ' })).toEqual([expect.stringMatching(/^ {2}AMQP_URL: must be a URL/)]);
  });

  it.each(['development', 'test'])('keeps the local defaults with NODE_ENV=%s, and the development keys unset', (NODE_ENV) => {
    const config = loadConfig(Schema, { NODE_ENV, SERVICE_CLIENT_SECRET: SECRET });
    expect(config).toMatchObject({
      NODE_ENV,
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/bedrequest',
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(config.DATA_KEK).toBeUndefined();
    expect(loadConfig(Schema, { NODE_ENV, SERVICE_CLIENT_SECRET: SECRET, DATABASE_URL: '' }).DATABASE_URL).toBe(
      'postgresql://postgres@127.0.0.1:5432/bedrequest',
    );
  });

  it('refuses an unknown NODE_ENV and applies production meanwhile', () => {
    expect(problemsOf({ NODE_ENV: 'staging', SERVICE_CLIENT_SECRET: SECRET }).map((line) => line.trim().split(':')[0])).toEqual([
      'NODE_ENV',
      'AMQP_URL',
      'DATABASE_URL',
      'REDIS_URL',
      'DATA_KEK',
    ]);
  });

  it('gives no local default to a schema made without configSchema, whatever NODE_ENV says', () => {
    const Forgotten = z.object({ NODE_ENV: baseServiceEnv.NODE_ENV, ...redisEnv });
    expect(() => loadConfig(Forgotten, { NODE_ENV: 'development' })).toThrow(/REDIS_URL: required in production/);
  });
});
