import { loadConfig } from '@bedrequest/config';
import { WebConfig } from './config';

describe('the web app configuration', () => {
  it('listens on 8085 under its defaults, reaches the gateway on 8080 and trusts no proxy', () => {
    expect(loadConfig(WebConfig, {})).toMatchObject({ WEB_PORT: 8085, WEB_INTERNAL_PORT: 9085, GATEWAY_URL: 'http://127.0.0.1:8080', TRUSTED_PROXIES: [] });
  });

  it('requires WEB_CSRF_SECRET in production, with one line naming it', () => {
    expect(() => loadConfig(WebConfig, { NODE_ENV: 'production' })).toThrow(/WEB_CSRF_SECRET: required in production/);
    const secret = 'a'.repeat(32);
    expect(loadConfig(WebConfig, { NODE_ENV: 'production', WEB_CSRF_SECRET: secret }).WEB_CSRF_SECRET).toBe(secret);
  });

  it('refuses a short secret at start-up and takes an empty one as unset', () => {
    expect(() => loadConfig(WebConfig, { WEB_CSRF_SECRET: 'short' })).toThrow(/WEB_CSRF_SECRET: must be at least 32 characters/);
    expect(loadConfig(WebConfig, { WEB_CSRF_SECRET: '  ' }).WEB_CSRF_SECRET).toBeUndefined();
  });
});
