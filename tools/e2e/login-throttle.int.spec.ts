import { randomUUID } from 'node:crypto';
import { passwordOf, startE2eStack, type E2eStack } from './e2e-stack';

/**
 * Login throttling by the client's real address through the gateway (docs/parties.md, "Throttling";
 * docs/operations.md, "Client addresses behind proxies"): the stack's services trust 127.0.0.1,
 * where this test connects from, as a proxy would in front of the gateway, so the X-Forwarded-For
 * it sends names the client; the gateway passes that address on to auth. Failed logins from one
 * client behind the proxy lock out that client, not the others behind the same proxy; an IPv6
 * client counts by its /64.
 */
describe('login throttling through the gateway, by the address behind a trusted proxy', () => {
  let stack: E2eStack;
  let username: string;

  beforeAll(async () => {
    stack = await startE2eStack({ NODE_ENV: 'test', AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS: '3' });
    username = `throttled-${randomUUID().slice(0, 8)}`;
    await stack.createReferrer(username, ['260000001'], `https://throttle-${randomUUID().slice(0, 8)}.example/fhir`);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const loginFrom = (address: string, user: string, password: string) =>
    stack.api('POST', '/api/v1/token/login', { body: { username: user, password }, headers: { 'x-forwarded-for': address } });

  it.each([
    ['an IPv4 client', ['203.0.113.5', '203.0.113.5', '203.0.113.5'], '203.0.113.5', '203.0.113.6'],
    ['an IPv6 client (counted by its /64)', ['2001:db8:5:5::2', '2001:db8:5:5::3', '2001:db8:5:5:ffff::4'], '2001:db8:5:5::1', '2001:db8:5:6::1'],
  ])('locks out %s that failed, and not another client behind the same proxy', async (_, failing, lockedOut, other) => {
    for (const [attempt, address] of failing.entries()) {
      expect((await loginFrom(address, `nobody-${attempt}`, 'not-the-password')).status).toBe(401);
    }
    expect((await loginFrom(lockedOut, username, passwordOf(username))).status).toBe(429);
    expect((await loginFrom(other, username, passwordOf(username))).status).toBe(200);
  });
});
