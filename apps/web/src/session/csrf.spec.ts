import type { Request } from 'express';
import { CsrfTokens, isSameOrigin } from './csrf';

const request = (headers: Record<string, string>, body: Record<string, unknown> = {}) =>
  ({ headers: { host: 'inbox.example:8080', ...headers }, body }) as unknown as Request;

describe('the inbox CSRF checks', () => {
  const tokens = new CsrfTokens('k'.repeat(32));

  it('accept the token of the session only, from the form field or the header', () => {
    const token = tokens.tokenOf('session-1');
    expect(tokens.verify(request({}, { _csrf: token }), 'session-1')).toBe(true);
    expect(tokens.verify(request({ 'x-csrf-token': token }), 'session-1')).toBe(true);
    expect(tokens.verify(request({}, { _csrf: token }), 'session-2')).toBe(false);
    expect(tokens.verify(request({}, { _csrf: tokens.tokenOf('session-1', 'login') }), 'session-1')).toBe(false);
    expect(tokens.verify(request({}), 'session-1')).toBe(false);
    expect(new CsrfTokens('other key that is long enough......').tokenOf('session-1')).not.toBe(token);
  });

  it('take a request as same-origin only when Sec-Fetch-Site and Origin agree with this host', () => {
    expect(isSameOrigin(request({ 'sec-fetch-site': 'same-origin', origin: 'https://inbox.example:8080' }))).toBe(true);
    expect(isSameOrigin(request({}))).toBe(true);
    expect(isSameOrigin(request({ 'sec-fetch-site': 'same-site' }))).toBe(false);
    expect(isSameOrigin(request({ 'sec-fetch-site': 'cross-site' }))).toBe(false);
    expect(isSameOrigin(request({ origin: 'https://attacker.example' }))).toBe(false);
    expect(isSameOrigin(request({ origin: 'null' }))).toBe(false);
  });
});
