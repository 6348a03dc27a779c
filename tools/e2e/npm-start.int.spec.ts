import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology, freePort, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';

/**
 * `npm start` as a user runs it: `node tools/start.mjs` in a child process, on ports of its own and in
 * a broker namespace, schemas and Redis prefix of its own; everything it and the services write is
 * collected, to check what reaches the terminal.
 */
describe('npm start', () => {
  const run = testEnvironment();
  const namespace = uniqueName('start');
  let output = '';
  let child: ReturnType<typeof spawn> | undefined;

  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await deleteBrokerTopology(run.amqpUrl, declareTopology(namespace)).catch(() => undefined);
  });

  it('builds and starts all six services, prints the API and the inbox, answers, and stops cleanly on Ctrl-C', async () => {
    const [gateway, gatewayInternal, web, webInternal, auth, intake, routing, notifier] = await Promise.all(Array.from({ length: 8 }, freePort));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: String(gateway),
      INTERNAL_PORT: String(gatewayInternal),
      WEB_PORT: String(web),
      WEB_INTERNAL_PORT: String(webInternal),
      AUTH_PORT: String(auth),
      INTAKE_PORT: String(intake),
      ROUTING_PORT: String(routing),
      NOTIFIER_PORT: String(notifier),
      AMQP_NAMESPACE: namespace,
      AUTH_DB_SCHEMA: `${namespace}_auth`,
      INTAKE_DB_SCHEMA: `${namespace}_intake`,
      ROUTING_DB_SCHEMA: `${namespace}_routing`,
      NOTIFIER_DB_SCHEMA: `${namespace}_notifier`,
      REDIS_KEY_PREFIX: `${run.redisKeyPrefix}${namespace}:`,
      LOG_LEVEL: 'info',
      NO_COLOR: '1',
    };
    child = spawn(process.execPath, [join(__dirname, '..', 'start.mjs')], { cwd: join(__dirname, '..', '..'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (code) => resolve(code)));
    await waitFor(() => output.includes('The clinic inbox is at') || child!.exitCode !== null, { timeoutMs: 150_000, what: 'npm start to say it is ready' });
    expect(child.exitCode).toBeNull();

    const gatewayUrl = `http://127.0.0.1:${gateway}`;
    expect(output).toContain(`Bed Occupancy Request Service is ready at ${gatewayUrl}`);
    expect(output).toContain(`The clinic inbox is at http://127.0.0.1:${web}/inbox/`);
    // A quiet start: no service met another that was still starting ("auth ... ECONNREFUSED", "the
    // clinic registry could not be reloaded"), no stack trace; the only warnings are those of the development keys.
    const startUp = output.slice(0, output.indexOf('is ready at'));
    // The development keys (auth's signing key, intake's and the notifier's key of data at rest) warn on purpose.
    expect(
      startUp.split('\n').filter((line) => /\b(WARN|ERROR|FATAL)\b/.test(line) && !/(signing|encrypting data at rest) with the development key/.test(line)),
    ).toEqual([]);
    expect(startUp).not.toMatch(/"stack"|\n\s+at .+:\d+:\d+/);

    const status = await fetch(`${gatewayUrl}/api/v1/token/status`, { headers: { 'x-correlation-id': `stack-test-${run.runId}` } });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ status: 'ok' });
    // The correlation id travels from the gateway to the auth service and into both logs.
    await waitFor(() => output.split('\n').filter((line) => line.includes(`stack-test-${run.runId}`)).length >= 2, {
      what: 'both services to log the correlation id',
    });

    // The inbox answers on the web app's port; the gateway sends its old address there.
    expect((await fetch(`http://127.0.0.1:${web}/inbox/login`)).status).toBe(200);
    const moved = await fetch(`${gatewayUrl}/inbox/tasks?filter=new`, { redirect: 'manual' });
    expect({ status: moved.status, location: moved.headers.get('location') }).toEqual({
      status: 301,
      location: `http://127.0.0.1:${web}/inbox/tasks?filter=new`,
    });

    // Probes and metrics are on the internal ports only, never on the public ones.
    for (const [publicUrl, internalUrl] of [
      [gatewayUrl, `http://127.0.0.1:${gatewayInternal}`],
      [`http://127.0.0.1:${web}`, `http://127.0.0.1:${webInternal}`],
    ] as const) {
      for (const path of ['/metrics', '/health/ready', '/health/live']) {
        expect({ publicUrl, path, status: (await fetch(`${publicUrl}${path}`)).status }).toEqual({ publicUrl, path, status: 404 });
        expect({ internalUrl, path, status: (await fetch(`${internalUrl}${path}`)).status }).toEqual({ internalUrl, path, status: 200 });
      }
      expect(await (await fetch(`${internalUrl}/metrics`)).text()).toContain('http_requests_total');
    }

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('[start]    stopped');
  }, 240_000);
});
