import { loadConfig } from '@bedrequest/config';
import { z } from 'zod';
import { DEVELOPMENT_CSRF_SECRET, inboxCsrfSecretOf, inboxEnv, InboxConfigError } from './inbox-config';

describe('INBOX_CSRF_SECRET', () => {
  const Schema = z.object(inboxEnv);

  it('is required in production and defaults to the development key elsewhere', () => {
    expect(() => inboxCsrfSecretOf({ NODE_ENV: 'production' })).toThrow(InboxConfigError);
    expect(inboxCsrfSecretOf({ NODE_ENV: 'development' })).toBe(DEVELOPMENT_CSRF_SECRET);
    expect(inboxCsrfSecretOf({ NODE_ENV: 'test' })).toBe(DEVELOPMENT_CSRF_SECRET);
    const secret = 'a'.repeat(32);
    expect(inboxCsrfSecretOf({ NODE_ENV: 'production', INBOX_CSRF_SECRET: secret })).toBe(secret);
  });

  it('refuses a short secret at start-up and takes an empty one as unset', () => {
    expect(() => loadConfig(Schema, { INBOX_CSRF_SECRET: 'short' })).toThrow(/INBOX_CSRF_SECRET: must be at least 32 characters/);
    expect(loadConfig(Schema, { INBOX_CSRF_SECRET: '  ' })).toEqual({ INBOX_CSRF_SECRET: undefined });
  });
});
