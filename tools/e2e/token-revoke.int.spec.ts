// POST /api/v1/token/revoke through the gateway (RFC 7009): the whole stack in-process
// (tools/e2e/stack-harness.ts), the gateway's token proxy in front of the real auth service and Redis.
import { startE2eStack, passwordOf, type E2eStack } from './e2e-stack';

interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

describe('revoking a refresh token through the gateway', () => {
  let stack: E2eStack;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic('510000301', 'Reha-Klinik Am Waldsee', ['2300']);
    await stack.createClinicUser('waldsee', '510000301');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const login = async () =>
    (await stack.api<TokenPair>('POST', '/api/v1/token/login', { body: { username: 'waldsee', password: passwordOf('waldsee') } })).body.refreshToken;
  const refresh = (refreshToken: string) => stack.api<TokenPair>('POST', '/api/v1/token/refresh', { body: { refreshToken } });
  const revoke = (body: unknown, contentType?: string) => stack.api('POST', '/api/v1/token/revoke', { body, ...(contentType ? { contentType } : {}) });

  it('answers 200 with no body and no-store, after which no token of the family refreshes', async () => {
    const first = await login();
    const second = (await refresh(first)).body.refreshToken;
    const third = (await refresh(second)).body.refreshToken;

    const response = await revoke({ refreshToken: first });

    expect(response.status).toBe(200);
    expect(response.body).toBeUndefined();
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toBeNull();
    expect((await refresh(third)).status).toBe(401);
  });

  it('answers a token that is not live with 200 as well', async () => {
    const token = await login();
    await revoke({ refreshToken: token });

    expect((await revoke({ refreshToken: token })).status).toBe(200);
    expect((await revoke({ refreshToken: 'not-a-refresh-token' })).status).toBe(200);
  });

  it('refuses a body without a refreshToken string with 400 and a form with 415, and revokes nothing', async () => {
    const token = await login();

    const missing = await revoke({ token });
    const form = await revoke(`refreshToken=${token}`, 'application/x-www-form-urlencoded');

    expect([missing.status, missing.body]).toEqual([400, { error: 'invalid_request', message: 'refreshToken: is required; token: not allowed' }]);
    expect(form.status).toBe(415);
    expect((await refresh(token)).status).toBe(200);
  });
});
