import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology, testEnvironment, waitFor, freePort } from '@bedrequest/testing';

describe('npm start', () => {
  let stack: ChildProcess | undefined;
  let output = '';

  const namespace = `${testEnvironment().amqpNamespace}-stack`;

  afterAll(async () => {
    if (stack?.exitCode === null) stack.kill('SIGKILL');
    await deleteBrokerTopology(testEnvironment().amqpUrl, declareTopology(namespace));
  });

  it('builds and starts all five services, answers the status endpoint, and stops cleanly on Ctrl-C', async () => {
    const env = testEnvironment();
    const [gateway, auth, intake, routing, notifier] = await Promise.all(Array.from({ length: 5 }, freePort));
    stack = spawn(process.execPath, [join(__dirname, 'start.mjs')], {
      cwd: join(__dirname, '..'),
      env: {
        ...process.env,
        PORT: String(gateway),
        AUTH_PORT: String(auth),
        INTAKE_PORT: String(intake),
        ROUTING_PORT: String(routing),
        NOTIFIER_PORT: String(notifier),
        AMQP_NAMESPACE: namespace,
        LOG_LEVEL: 'info',
        NO_COLOR: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stack.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    stack.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));

    await waitFor(() => output.includes('is ready at'), { timeoutMs: 120_000, what: `the stack to be ready:\n${output}` });
    expect(output).toContain(`Bed Occupancy Request Service is ready at http://127.0.0.1:${gateway}`);

    const status = await fetch(`http://127.0.0.1:${gateway}/api/v1/token/status`, {
      headers: { 'x-correlation-id': `stack-test-${env.runId}` },
    });
    expect(status.status).toBe(200);
    expect(await status.json()).toMatchObject({ status: 'ok' });
    // The correlation id travels from the gateway to the auth service and into both logs.
    await waitFor(() => output.split('\n').filter((line) => line.includes(`stack-test-${env.runId}`)).length >= 2, {
      what: 'both services to log the correlation id',
    });

    const exited = new Promise<number | null>((resolve) => stack!.once('exit', (code) => resolve(code)));
    stack.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('[start]    stopped');
  }, 180_000);
});
