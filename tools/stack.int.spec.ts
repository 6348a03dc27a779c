import { testEnvironment, waitFor } from '@bedrequest/testing';
import { spawnStack, type SpawnedStack } from './e2e/spawned-stack';

describe('npm start', () => {
  let stack: SpawnedStack | undefined;

  afterAll(async () => {
    await stack?.stop();
  });

  it('builds and starts all five services, answers the status endpoint, and stops cleanly on Ctrl-C', async () => {
    const env = testEnvironment();
    stack = await spawnStack();
    expect(stack.output()).toContain(`Bed Occupancy Request Service is ready at ${stack.gatewayUrl}`);
    // A quiet start: no service met another that was still starting ("auth ... ECONNREFUSED", "the
    // clinic registry could not be reloaded"), no stack trace; the only warnings are those of the development keys.
    const startUp = stack.output().slice(0, stack.output().indexOf('is ready at'));
    // The development keys (auth's signing key, intake's and the notifier's key of data at rest) warn on purpose.
    expect(startUp.split('\n').filter((line) => /\b(WARN|ERROR|FATAL)\b/.test(line) && !/(signing|encrypting data at rest) with the development key/.test(line))).toEqual([]);
    expect(startUp).not.toMatch(/"stack"|\n\s+at .+:\d+:\d+/);

    const status = await fetch(`${stack.gatewayUrl}/api/v1/token/status`, { headers: { 'x-correlation-id': `stack-test-${env.runId}` } });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ status: 'ok' });
    // The correlation id travels from the gateway to the auth service and into both logs.
    await waitFor(() => stack!.output().split('\n').filter((line) => line.includes(`stack-test-${env.runId}`)).length >= 2, {
      what: 'both services to log the correlation id',
    });

    // Probes and metrics are on the gateway's internal port only, never on the public one.
    const internalUrl = `http://127.0.0.1:${stack.env.INTERNAL_PORT}`;
    for (const path of ['/metrics', '/health/ready', '/health/live']) {
      expect({ path, status: (await fetch(`${stack.gatewayUrl}${path}`)).status }).toEqual({ path, status: 404 });
      expect({ path, status: (await fetch(`${internalUrl}${path}`)).status }).toEqual({ path, status: 200 });
    }
    expect(await (await fetch(`${internalUrl}/metrics`)).text()).toContain('http_requests_total');

    expect(await stack.stop()).toBe(0);
    expect(stack.output()).toContain('[start]    stopped');
  }, 180_000);
});
