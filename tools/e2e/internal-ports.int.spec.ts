// Health probes and metrics on an internal port of each service's own (docs/operations.md, "Metrics
// and probes"), never on the port the other services call: what monitoring may reach is that port
// alone (deploy/, tools/deploy/manifests.spec.ts). Through the real services, in this process.
import { launchStack, type Stack } from '@bedrequest/stack';

const SERVICES = ['auth', 'routing', 'intake', 'notifier'] as const;

describe('the internal port of auth, intake, routing and the notifier', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await launchStack({ mode: 'in-process', isolate: 'ports', services: SERVICES, env: { LOG_LEVEL: 'silent' } });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  }, 60_000);

  const status = (base: string, path: string) => fetch(new URL(path, base), { headers: { connection: 'close' } }).then((response) => response.status);

  it.each(SERVICES)('of %s answers /metrics and /health/*, on a port other than its service port', async (service) => {
    const { url, probeUrl } = stack.instance(service);
    expect(new URL(probeUrl).port).not.toBe(new URL(url).port);
    const metrics = await fetch(new URL('/metrics', probeUrl));
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toMatch(/^service_ready(\{[^}]*\})? 1$/m);
    expect({ ready: await status(probeUrl, '/health/ready'), live: await status(probeUrl, '/health/live') }).toEqual({ ready: 200, live: 200 });
  });

  it.each(SERVICES)('of %s is the only one: its service port answers neither /metrics nor /health/*', async (service) => {
    const { url } = stack.instance(service);
    const answers = Object.fromEntries(await Promise.all(['/metrics', '/health/ready', '/health/live'].map(async (path) => [path, await status(url, path)])));
    expect(answers).toEqual({ '/metrics': 404, '/health/ready': 404, '/health/live': 404 });
  });
});
