import { loadConfig } from '@bedrequest/config';
import { NotifierConfig, allowsPrivateCallbacks } from './config';
import { parseDuration } from './delivery/durations';

const DATA_KEK = Buffer.alloc(32, 1).toString('base64');

describe('NotifierConfig', () => {
  it('defaults to the retry schedule of docs/decisions.md, a 10 s timeout, disabling after 5 days and 7 days of retention', () => {
    const config = loadConfig(NotifierConfig, {});
    expect(config.WEBHOOK_RETRY_SCHEDULE).toEqual([5, 30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800, 28_800].map((s) => s * 1000));
    expect(config.WEBHOOK_TIMEOUT).toBe(10_000);
    expect(config.WEBHOOK_DISABLE_AFTER).toBe(5 * 86_400_000);
    expect(config.WEBHOOK_EVENT_RETENTION).toBe(7 * 86_400_000);
    expect(config.NOTIFIER_DB_SCHEMA).toBe('notifier');
  });

  it('defaults to 64 attempts in flight per process (the slots 3,000 deliveries/s need)', () => {
    expect(loadConfig(NotifierConfig, {}).WEBHOOK_CONCURRENCY).toBe(64);
  });

  it('reads a retry schedule of comma-separated durations; empty means a single attempt', () => {
    expect(loadConfig(NotifierConfig, { WEBHOOK_RETRY_SCHEDULE: '250ms, 2s,1.5m' }).WEBHOOK_RETRY_SCHEDULE).toEqual([250, 2_000, 90_000]);
    expect(loadConfig(NotifierConfig, { WEBHOOK_RETRY_SCHEDULE: '' }).WEBHOOK_RETRY_SCHEDULE).toEqual([]);
  });

  it('refuses a schedule that is not a list of durations, naming the variable', () => {
    expect(() => loadConfig(NotifierConfig, { WEBHOOK_RETRY_SCHEDULE: '5s,soon' })).toThrow(/WEBHOOK_RETRY_SCHEDULE: "soon" is not a duration/);
    expect(() => loadConfig(NotifierConfig, { WEBHOOK_TIMEOUT: '10' })).toThrow(/WEBHOOK_TIMEOUT/);
  });

  it.each([
    [{ NODE_ENV: 'production' }, false],
    [{ NODE_ENV: 'development' }, true],
    [{ NODE_ENV: 'test' }, true],
    [{ NODE_ENV: 'production', WEBHOOK_ALLOW_PRIVATE: 'true' }, true],
    [{ NODE_ENV: 'development', WEBHOOK_ALLOW_PRIVATE: 'false' }, false],
  ])('allows private callback addresses for %j: %s', (environment, allowed) => {
    expect(allowsPrivateCallbacks(loadConfig(NotifierConfig, { DATA_KEK, ...environment }))).toBe(allowed);
  });

  it('refuses to start in production without a key-encryption key, in one line naming DATA_KEK', () => {
    expect(() => loadConfig(NotifierConfig, { NODE_ENV: 'production' })).toThrow(
      /^invalid configuration:\n {2}DATA_KEK: required in production: base64 of 32 random bytes[^\n]*$/,
    );
    expect(loadConfig(NotifierConfig, { NODE_ENV: 'production', DATA_KEK }).DATA_KEK).toBe(DATA_KEK);
    expect(loadConfig(NotifierConfig, {}).DATA_KEK).toBeUndefined();
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
