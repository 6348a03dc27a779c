import { loadConfig } from '@bedrequest/config';
import { AuthCliConfig, AuthConfig, allowsPrivateClientJwks } from './config';

const SERVICE_CLIENT_SECRET = 'c'.repeat(32);
const AUTH_SIGNING_KEY = '-----BEGIN PRIVATE KEY-----\n(checked when the key is imported, not here)\n-----END PRIVATE KEY-----';

describe('the auth configuration', () => {
  it('is in production without NODE_ENV and then requires its database, Redis, signing key, client secret and public URL, one line naming each', () => {
    expect(() => loadConfig(AuthConfig, {})).toThrow(
      new RegExp(
        [
          '^invalid configuration:',
          '  REDIS_URL: required in production: [^\\n]*',
          '  DATABASE_URL: required in production: [^\\n]*',
          '  AUTH_SIGNING_KEY: required in production: the Ed25519 private key tokens are signed with [^\\n]*',
          '  SERVICE_CLIENT_SECRET: required: [^\\n]*',
          "  API_PUBLIC_URL: required in production: the public API's address [^\\n]*$",
        ].join('\\n'),
      ),
    );
    const production = {
      DATABASE_URL: 'postgresql://auth:pw@db:5432/bedrequest',
      REDIS_URL: 'rediss://auth:pw@redis:6379',
      AUTH_SIGNING_KEY,
      SERVICE_CLIENT_SECRET,
      API_PUBLIC_URL: 'https://bedrequest.example.org',
    };
    expect(loadConfig(AuthConfig, production)).toMatchObject({ NODE_ENV: 'production', ...production });
  });

  it('never fetches system clients\' keys from private addresses in production (docs/parties.md, "System clients and scopes")', () => {
    const production = {
      DATABASE_URL: 'postgresql://auth:pw@db:5432/bedrequest',
      REDIS_URL: 'rediss://auth:pw@redis:6379',
      AUTH_SIGNING_KEY,
      SERVICE_CLIENT_SECRET,
      API_PUBLIC_URL: 'https://bedrequest.example.org',
    };
    expect(() => loadConfig(AuthConfig, { ...production, CLIENT_JWKS_ALLOW_PRIVATE: 'true' })).toThrow(
      /^invalid configuration:\n {2}CLIENT_JWKS_ALLOW_PRIVATE: must not be true in production: [^\n]*$/,
    );
    expect(allowsPrivateClientJwks(loadConfig(AuthConfig, production))).toBe(false);
    expect(allowsPrivateClientJwks(loadConfig(AuthConfig, { ...production, CLIENT_JWKS_ALLOW_PRIVATE: 'false' }))).toBe(false);
    expect(allowsPrivateClientJwks(loadConfig(AuthConfig, { NODE_ENV: 'development', SERVICE_CLIENT_SECRET }))).toBe(true);
    expect(allowsPrivateClientJwks(loadConfig(AuthConfig, { NODE_ENV: 'test', SERVICE_CLIENT_SECRET, CLIENT_JWKS_ALLOW_PRIVATE: 'no' }))).toBe(false);
    expect(loadConfig(AuthConfig, { NODE_ENV: 'development', SERVICE_CLIENT_SECRET }).API_PUBLIC_URL).toBe('http://127.0.0.1:8080');
  });

  it('keeps the local services and the development signing key in development', () => {
    const config = loadConfig(AuthConfig, { NODE_ENV: 'development', SERVICE_CLIENT_SECRET });
    expect(config).toMatchObject({ DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/bedrequest', REDIS_URL: 'redis://127.0.0.1:6379' });
    expect(config.AUTH_SIGNING_KEY).toBeUndefined();
  });

  it('throttles failed logins per username and address far below the limit per username across addresses (docs/parties.md, "Throttling")', () => {
    expect(loadConfig(AuthConfig, { NODE_ENV: 'development', SERVICE_CLIENT_SECRET })).toMatchObject({
      AUTH_LOGIN_MAX_FAILURES_PER_USERNAME_AND_ADDRESS: 10,
      AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS: 100,
      AUTH_LOGIN_MAX_FAILURES_PER_USERNAME: 100,
      AUTH_LOGIN_FAILURE_WINDOW_SECONDS: 900,
    });
  });

  it('gives the admin command line the same rule: its database and the signing key for its service token', () => {
    expect(() => loadConfig(AuthCliConfig, {})).toThrow(
      /^invalid configuration:\n {2}DATABASE_URL: required in production: [^\n]*\n {2}AUTH_SIGNING_KEY: required in production: [^\n]*$/,
    );
    expect(loadConfig(AuthCliConfig, { NODE_ENV: 'development' }).DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/bedrequest');
  });
});
