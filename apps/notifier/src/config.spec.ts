import { loadConfig } from '@bedrequest/config';
import { NotifierConfig, allowsPrivateCallbacks, requiresHttpsCallbacks } from './config';
import { parseDuration } from './delivery/durations';

const DATA_KEK = Buffer.alloc(32, 1).toString('base64');
/** What production must be given (docs/webhooks.md, "Configuration"). */
const PRODUCTION = {
  DATA_KEK,
  DATABASE_URL: 'postgresql://notifier:pw@db:5432/bedrequest',
  AMQP_URL: 'amqps://notifier:pw@broker:5671',
  SERVICE_CLIENT_SECRET: 's'.repeat(32),
};
const DEVELOPMENT = { NODE_ENV: 'development' };

describe('NotifierConfig', () => {
  it('defaults to the retry schedule of docs/decisions.md, a 10 s timeout, disabling after 5 days and 7 days of retention', () => {
    const config = loadConfig(NotifierConfig, PRODUCTION);
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800].map((s) => s * 1000));
    expect(config.WEBHOOK_TIMEOUT).toBe(10_000);
    expect(config.WEBHOOK_DISABLE_AFTER).toBe(5 * 86_400_000);
    expect(config.WEBHOOK_EVENT_RETENTION).toBe(7 * 86_400_000);
    expect(config.NOTIFIER_DB_SCHEMA).toBe('notifier');
  });

  it('defaults to heartbeats of at least 60 s looked for every 10 s, and a 24 h overlap of a rotated secret (docs/webhooks.md, "Subscription options")', () => {
    const config = loadConfig(NotifierConfig, PRODUCTION);
    expect([config.WEBHOOK_HEARTBEAT_MIN, config.WEBHOOK_HEARTBEAT_CHECK_INTERVAL, config.WEBHOOK_SECRET_OVERLAP]).toEqual([60_000, 10_000, 86_400_000]);
    expect(loadConfig(NotifierConfig, { ...DEVELOPMENT, WEBHOOK_SECRET_OVERLAP: '0s' }).WEBHOOK_SECRET_OVERLAP).toBe(0);
    expect(() => loadConfig(NotifierConfig, { ...DEVELOPMENT, WEBHOOK_SECRET_OVERLAP: '24' })).toThrow(/WEBHOOK_SECRET_OVERLAP/);
  });

  it('requires SERVICE_CLIENT_SECRET in production only (the disabled parties are read with it), and polls them every second', () => {
    expect(() => loadConfig(NotifierConfig, { ...PRODUCTION, SERVICE_CLIENT_SECRET: '' })).toThrow(/SERVICE_CLIENT_SECRET: required in production/);
    expect(() => loadConfig(NotifierConfig, { ...PRODUCTION, SERVICE_CLIENT_SECRET: 'short' })).toThrow(
      /SERVICE_CLIENT_SECRET: must be at least 32 characters/,
    );
    expect(loadConfig(NotifierConfig, DEVELOPMENT).SERVICE_CLIENT_SECRET).toBeUndefined();
    expect(loadConfig(NotifierConfig, PRODUCTION).WEBHOOK_PARTY_POLL_MS).toBe(1_000);
    expect(() => loadConfig(NotifierConfig, { ...DEVELOPMENT, WEBHOOK_PARTY_POLL_MS: '10' })).toThrow(/WEBHOOK_PARTY_POLL_MS/);
  });

  it('defaults to 64 attempts in flight per process (the slots 3,000 deliveries/s need)', () => {
    expect(loadConfig(NotifierConfig, PRODUCTION).WEBHOOK_CONCURRENCY).toBe(64);
  });

  it('reads a retry schedule of comma-separated durations; empty means a single attempt', () => {
    expect(loadConfig(NotifierConfig, { ...DEVELOPMENT, WEBHOOK_RETRY_SCHEDULE: '250ms, 2s,1.5m' }).WEBHOOK_RETRY_SCHEDULE).toEqual([250, 2_000, 90_000]);
    expect(loadConfig(NotifierConfig, { ...DEVELOPMENT, WEBHOOK_RETRY_SCHEDULE: '' }).WEBHOOK_RETRY_SCHEDULE).toEqual([]);
  });

  it('refuses a schedule that is not a list of durations, naming the variable', () => {
    expect(() => loadConfig(NotifierConfig, { ...DEVELOPMENT, WEBHOOK_RETRY_SCHEDULE: '5s,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE: "soon" is not a duration/);
    expect(() => loadConfig(NotifierConfig, { ...DEVELOPMENT, WEBHOOK_TIMEOUT: '10' })).toThrow(/WEBHOOK_TIMEOUT/);
  });

  it.each([
    [{}, false],
    [{ NODE_ENV: 'production' }, false],
    [{ NODE_ENV: 'development' }, true],
    [{ NODE_ENV: 'test' }, true],
    [{ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true' }, true],
    [{ NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE: 'false' }, false],
  ])('allows private callback addresses for %j: %s', (environment, allowed) => {
    expect(allowsPrivateCallbacks(loadConfig(NotifierConfig, { ...PRODUCTION, ...environment }))).toBe(allowed);
  });

  it.each([
    [{}, true],
    [{ NODE_ENV: 'production' }, true],
    [{ NODE_ENV: 'development' }, false],
    [{ NODE_ENV: 'test' }, false],
    [{ NODE_ENV: 'production', WEBHOOK_REQUIRE_HTTPS: 'false' }, false],
    [{ NODE_ENV: 'development', WEBHOOK_REQUIRE_HTTPS: 'true' }, true],
  ])('requires https callback URLs for %j: %s', (environment, required) => {
    expect(requiresHttpsCallbacks(loadConfig(NotifierConfig, { ...PRODUCTION, ...environment }))).toBe(required);
  });

  it('refuses a WEBHOOK_REQUIRE_HTTPS that is not a boolean, naming it', () => {
    expect(() => loadConfig(NotifierConfig, { ...DEVELOPMENT, WEBHOOK_REQUIRE_HTTPS: 'always' })).toThrow(/\n {2}WEBHOOK_REQUIRE_HTTPS: /);
  });

  it('refuses to start in production without its key and connection URLs, one line naming each', () => {
    expect(() => loadConfig(NotifierConfig, {})).toThrow(
      /^invalid configuration:\n {2}AMQP_URL: required in production: [^\n]*\n {2}DATABASE_URL: required in production: [^\n]*\n {2}DATA_KEK: required in production: base64 of 32 random bytes[^\n]*\n {2}SERVICE_CLIENT_SECRET: required in production: [^\n]*$/,
    );
    expect(() => loadConfig(NotifierConfig, { ...PRODUCTION, DATA_KEK: '' })).toThrow(/^invalid configuration:\n {2}DATA_KEK: required in production: [^\n]*$/);
    expect(loadConfig(NotifierConfig, PRODUCTION)).toMatchObject({ NODE_ENV: 'production', ...PRODUCTION });
  });

  it('keeps the local services and a development key in development', () => {
    expect(loadConfig(NotifierConfig, DEVELOPMENT)).toMatchObject({
      AMQP_URL: 'amqp://guest:guest@127.0.0.1:5672',
      DATABASE_URL: 'postgresql://postgres@127.0.0.1:5432/bedrequest',
    });
    expect(loadConfig(NotifierConfig, DEVELOPMENT).DATA_KEK).toBeUndefined();
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['5s', 5_000],
    ['2m', 120_000],
    ['1h', 3_600_000],
    ['7d', 604_800_000],
    ['1.5h', 5_400_000],
    [' 5s ', 5_000],
    ['0s', 0],
  ])('reads %j', (text, value) => {
    expect(parseDuration(text)).toBe(value);
  });

  it.each(['soon', '', '10', '-5s', '5x'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(`"${text}" is not a duration such as 500ms, 5s, 2m, 1h or 7d`);
  });
});
