import { loadConfig } from '@bedrequest/config';
import { WebConfig } from './config';

const DEVELOPMENT = { NODE_ENV: 'development' };
const secret = 'a'.repeat(32);

describe('the web app configuration', () => {
  it('listens on 8085 under its defaults, reaches the gateway on 8080 and trusts no proxy', () => {
    expect(loadConfig(WebConfig, DEVELOPMENT)).toMatchObject({
      WEB_PORT: 8085,
      WEB_INTERNAL_PORT: 9085,
      GATEWAY_URL: 'http://127.0.0.1:8080',
      TRUSTED_PROXIES: [],
    });
  });

  it('is in production without NODE_ENV and then requires REDIS_URL and WEB_CSRF_SECRET, one line naming each', () => {
    for (const environment of [{}, { NODE_ENV: 'production' }]) {
      expect(() => loadConfig(WebConfig, environment)).toThrow(
        /^invalid configuration:\n {2}REDIS_URL: required in production: [^\n]*\n {2}WEB_CSRF_SECRET: required in production: [^\n]*$/,
      );
    }
    const config = loadConfig(WebConfig, { REDIS_URL: 'rediss://web:pw@redis:6379', WEB_CSRF_SECRET: secret });
    expect(config).toMatchObject({ NODE_ENV: 'production', REDIS_URL: 'rediss://web:pw@redis:6379', WEB_CSRF_SECRET: secret });
  });

  it('refuses a short secret at start-up and takes an empty one as unset outside production', () => {
    expect(() => loadConfig(WebConfig, { ...DEVELOPMENT, WEB_CSRF_SECRET: 'short' })).toThrow(/WEB_CSRF_SECRET: must be at least 32 characters/);
    expect(loadConfig(WebConfig, { ...DEVELOPMENT, WEB_CSRF_SECRET: '  ' }).WEB_CSRF_SECRET).toBeUndefined();
  });

  it('is no sandbox unless SANDBOX says so, and takes WEB_PUBLIC_URL without its trailing slash or refuses one that is no http(s) URL', () => {
    const defaults = loadConfig(WebConfig, DEVELOPMENT);
    expect(defaults.SANDBOX).toBe(false);
    expect(defaults.WEB_PUBLIC_URL).toBeUndefined();
    expect(loadConfig(WebConfig, { ...DEVELOPMENT, SANDBOX: 'true', WEB_PUBLIC_URL: 'https://sandbox.example/' })).toMatchObject({
      SANDBOX: true,
      WEB_PUBLIC_URL: 'https://sandbox.example',
    });
    expect(() => loadConfig(WebConfig, { ...DEVELOPMENT, SANDBOX: 'maybe' })).toThrow(/SANDBOX/);
    expect(() => loadConfig(WebConfig, { ...DEVELOPMENT, WEB_PUBLIC_URL: 'sandbox.example' })).toThrow(/WEB_PUBLIC_URL: must be an absolute http or https URL/);
  });
});
