// A service process (dist/apps/<service>/main.cjs, as `npm start` and the Docker image run it)
// starting before what it needs: it waits quietly, says once what it waits for, and starts when
// that comes; or gives up after STARTUP_TIMEOUT_MS with one line per missing piece and exit code 1.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { loadConfig } from '@bedrequest/config';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology, freePort, serveClinicRegistry, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { AuthConfig } from '../apps/auth/src/config';
import { startAuth, type RunningAuth } from '../apps/auth/src/start';
import { buildServices, root } from './e2e/process-stack';
import { stackEnvironment } from './e2e/stack-environment';

interface ServiceProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
}

function startProcess(service: string, env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', service, 'main.cjs')], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, stdout: () => stdout, stderr: () => stderr, exited };
}

/** The JSON log lines of a service. */
const logLines = (stdout: string) => stdout.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as { level: number; msg: string });

describe('a service started before what it needs', () => {
  const run = testEnvironment();
  const namespace = uniqueName('start');
  let intake: ServiceProcess | undefined;
  let auth: RunningAuth | undefined;

  beforeAll(() => buildServices(), 180_000);

  afterAll(async () => {
    if (intake && intake.child.exitCode === null) {
      intake.child.kill('SIGTERM');
      await intake.exited;
    }
    await auth?.stop();
    await deleteBrokerTopology(run.amqpUrl, declareTopology(namespace)).catch(() => undefined);
  });

  it('waits for auth quietly, says once that it waits, and starts when auth comes up; no stack trace', async () => {
    const [authPort, intakePort] = await Promise.all([freePort(), freePort()]);
    const registry = await serveClinicRegistry([{ ik: '510000001', departments: ['2300'] }]);
    const env = { ...stackEnvironment(namespace), AUTH_PORT: String(authPort), AUTH_URL: `http://127.0.0.1:${authPort}`, INTAKE_PORT: String(intakePort), ROUTING_URL: registry.url, LOG_LEVEL: 'info' };
    try {
      intake = startProcess('intake', env);
      // Intake reads the clinic registry at start with a service token from auth, which is not there yet.
      await waitFor(() => intake!.stdout().includes('waiting for auth') || intake!.child.exitCode !== null, { timeoutMs: 30_000, what: 'intake to say that it waits for auth' });
      expect(intake.child.exitCode).toBeNull();

      auth = await startAuth(loadConfig(AuthConfig, { ...(process.env as Record<string, string>), ...env, LOG_LEVEL: 'silent' }));
      await waitFor(async () => (await fetch(`http://127.0.0.1:${intakePort}/health/ready`).catch(() => undefined))?.status === 200, { timeoutMs: 30_000, what: 'intake to become ready' });

      const lines = logLines(intake.stdout());
      expect(lines.filter((line) => line.msg.startsWith('waiting for')).map((line) => line.msg)).toEqual([`waiting for auth at http://127.0.0.1:${authPort}`]);
      expect(lines.filter((line) => line.msg.includes('answered after'))).toHaveLength(1);
      // Nothing worse than the one notice, and no stack trace anywhere.
      // (The development key of data at rest warns on purpose.)
      const warnings = lines.filter((line) => line.level >= 40 && !line.msg.includes('with the development key'));
      expect(warnings.map((line) => line.msg)).toEqual([`waiting for auth at http://127.0.0.1:${authPort}`]);
      expect(intake.stdout() + intake.stderr()).not.toMatch(/"stack"|\n\s+at .+:\d+:\d+/);
    } finally {
      await registry.stop();
    }
  }, 90_000);

  it('gives up after STARTUP_TIMEOUT_MS with one line per unreachable piece, and exits 1', async () => {
    const [database, broker] = await Promise.all([freePort(), freePort()]);
    const alone = startProcess('notifier', {
      ...stackEnvironment(uniqueName('start')),
      NOTIFIER_PORT: '0',
      DATABASE_URL: `postgresql://postgres@127.0.0.1:${database}/bedrequest`,
      AMQP_URL: `amqp://guest:guest@127.0.0.1:${broker}`,
      STARTUP_TIMEOUT_MS: '1500',
    });
    const startedAt = Date.now();
    expect(await alone.exited).toBe(1);
    expect(Date.now() - startedAt).toBeLessThan(10_000);
    expect(alone.stderr().trimEnd().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^notifier: PostgreSQL at 127\\.0\\.0\\.1:${database} is not reachable \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${database}; waited \\d\\.\\d s\\): start it \\(\`docker compose up -d postgres\`\\) or point DATABASE_URL at a running one$`)),
      expect.stringMatching(new RegExp(`^notifier: RabbitMQ at 127\\.0\\.0\\.1:${broker} is not reachable \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${broker}; waited \\d\\.\\d s\\): start it \\(\`docker compose up -d rabbitmq\`\\) or point AMQP_URL at a running one$`)),
    ]);
    expect(alone.stdout()).not.toContain('"stack"');
  }, 30_000);
});
