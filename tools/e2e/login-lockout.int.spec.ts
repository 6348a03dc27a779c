import { randomUUID } from 'node:crypto';
import { Agent, fetch } from 'undici';
import { passwordOf, startE2eStack, type E2eStack } from './e2e-stack';
import { openApiContract } from './openapi-contract';

/**
 * Whoever knows a username must not be able to lock its owner out (docs/parties.md, "Throttling"):
 * failed logins lock the username from the address that failed, not from the owner's. Two real
 * source addresses through the real gateway and auth, at the stack's default limits: the clients
 * connect from 127.0.0.2 and 127.0.0.3 (all of 127.0.0.0/8 is the loopback on Linux), neither of
 * them the stack's trusted proxy (127.0.0.1), so the gateway counts each by its own connection and
 * passes that address on to auth.
 */
const ATTACKER = '127.0.0.2';
const OWNER = '127.0.0.3';
/** AUTH_LOGIN_MAX_FAILURES_PER_USERNAME_AND_ADDRESS's default. */
const FAILURES_PER_USERNAME_AND_ADDRESS = 10;

describe('login lock-out through the gateway, by username and source address', () => {
  let stack: E2eStack;
  let username: string;
  const agents = new Map<string, Agent>();

  beforeAll(async () => {
    stack = await startE2eStack({ NODE_ENV: 'test' });
    username = `owner-${randomUUID().slice(0, 8)}`;
    await stack.createReferrer(username, ['260000001'], `https://lockout-${randomUUID().slice(0, 8)}.example/fhir`);
  }, 180_000);

  afterAll(async () => {
    await Promise.all([...agents.values()].map((agent) => agent.close()));
    await stack?.stop();
  });

  /** A login from a connection bound to `localAddress`, its answer checked against the OpenAPI document. */
  const loginFrom = async (localAddress: string, password: string) => {
    const agent = agents.get(localAddress) ?? new Agent({ localAddress });
    agents.set(localAddress, agent);
    const path = '/api/v1/token/login';
    const response = await fetch(`${stack.gatewayUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
      dispatcher: agent,
    });
    const text = await response.text();
    const exchange = {
      method: 'POST',
      path,
      status: response.status,
      headers: response.headers as unknown as Headers,
      body: JSON.parse(text) as unknown,
      text,
    };
    openApiContract().check(exchange);
    return exchange;
  };

  it("refuses the address that guessed, the right password included, and lets the owner's other address in", async () => {
    for (let attempt = 0; attempt < FAILURES_PER_USERNAME_AND_ADDRESS; attempt += 1) {
      expect((await loginFrom(ATTACKER, 'not-the-password')).status).toBe(401);
    }

    const locked = await loginFrom(ATTACKER, passwordOf(username));
    const owner = await loginFrom(OWNER, passwordOf(username));

    expect([locked.status, locked.body]).toEqual([429, { error: 'too_many_requests', message: expect.any(String) }]);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(owner.status).toBe(200);
    expect(owner.body).toMatchObject({ tokenType: 'Bearer', accessToken: expect.any(String) });
    // The owner's login frees nothing for the address that guessed.
    expect((await loginFrom(ATTACKER, passwordOf(username))).status).toBe(429);
  });
});
