import { baseServiceEnv } from './base-service';
import { ConfigError, loadConfig } from './load-config';
import { configSchema } from './production-rule';
import { dataKeyEnv } from './shared-env';

const Schema = configSchema({ NODE_ENV: baseServiceEnv.NODE_ENV, ...dataKeyEnv });
const key = Buffer.alloc(32, 7).toString('base64');
const otherKey = Buffer.alloc(32, 9).toString('base64');

function problemsOf(source: Record<string, string>): string[] {
  try {
    loadConfig(Schema, source);
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
}

describe('dataKeyEnv', () => {
  it('is optional outside production (a development key is used)', () => {
    expect(loadConfig(Schema, { NODE_ENV: 'development' })).toEqual({
      NODE_ENV: 'development',
      DATA_KEK: undefined,
      DATA_KEK_ID: undefined,
      DATA_PREVIOUS_KEKS: [],
    });
  });

  it('stops a production start without DATA_KEK with one line naming it', () => {
    expect(problemsOf({})).toEqual(['DATA_KEK: required in production: base64 of 32 random bytes (e.g. `openssl rand -base64 32`), from a secret store']);
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'DATA_KEK: required in production: base64 of 32 random bytes (e.g. `openssl rand -base64 32`), from a secret store',
    ]);
    expect(loadConfig(Schema, { NODE_ENV: 'production', DATA_KEK: key }).DATA_KEK).toBe(key);
  });

  it('takes only base64 of exactly 32 bytes, and never repeats the value in its message', () => {
    for (const bad of [Buffer.alloc(16).toString('base64'), 'not a key', `${key.slice(0, -2)}!=`]) {
      const problems = problemsOf({ NODE_ENV: 'production', DATA_KEK: bad });
      expect(problems).toEqual(['DATA_KEK: must be base64 of 32 random bytes (e.g. `openssl rand -base64 32`)']);
      expect(problems.join()).not.toContain(bad);
    }
  });

  it('reads previous keys as [<id>:]<base64>, comma-separated', () => {
    expect(loadConfig(Schema, { DATA_KEK: key, DATA_PREVIOUS_KEKS: `kek-2024:${key}, ${otherKey}` }).DATA_PREVIOUS_KEKS).toEqual([
      { id: 'kek-2024', key },
      { key: otherKey },
    ]);
    expect(problemsOf({ DATA_KEK: key, DATA_PREVIOUS_KEKS: `kek 2024:${key},${otherKey.slice(1)}` })).toEqual([
      'DATA_PREVIOUS_KEKS: entry 1: the id before ":" must be letters, digits, ".", "_" or "-", at most 64 characters',
      'DATA_PREVIOUS_KEKS: entry 2: must be [<id>:]<base64 of 32 bytes>',
    ]);
  });

  it('refuses an id that could not be written in DATA_PREVIOUS_KEKS later', () => {
    expect(problemsOf({ DATA_KEK: key, DATA_KEK_ID: 'kek:1' })).toEqual(['DATA_KEK_ID: must be letters, digits, ".", "_" or "-", at most 64 characters']);
  });
});
