// A service process (dist/apps/<service>/main.cjs, as `npm start` and the Docker image run it)
// starting before what it needs: it waits quietly, says once what it waits for, and starts when
// that comes; or gives up after STARTUP_TIMEOUT_MS with one line per missing piece and exit code 1.
import { randomBytes } from 'node:crypto';
import { declareTopology } from '@bedrequest/contracts';
import { buildServices, isolatedEnvironment, launchStack, provisionTopology, type Stack } from '@bedrequest/stack';
import { deleteBrokerTopology, freePort, serveClinicRegistry, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';

/** The JSON log lines of a service. */
const logLines = (stdout: string) =>
  stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { level: number; msg: string });

describe('a service started before what it needs', () => {
  const run = testEnvironment();
  const namespace = uniqueName('start');
  /** Service processes started one by one, none waited for (the launcher with no service of its own). */
  let processes: Stack;
  let auth: Stack | undefined;

  beforeAll(async () => {
    buildServices();
    // Each instance gets a namespace of its own below, so the stack is not provisioned for one: the
    // services run on the local administrator here (what this file tests is how they wait).
    processes = await launchStack({ mode: 'processes', isolate: false, provision: false, services: [], output: 'capture' });
    await provisionTopology({ AMQP_URL: run.amqpUrl, AMQP_NAMESPACE: namespace });
  }, 180_000);

  afterAll(async () => {
    await processes?.stop();
    await auth?.stop();
    await deleteBrokerTopology(run.amqpUrl, declareTopology(namespace)).catch(() => undefined);
  });

  it('waits for auth quietly, says once that it waits, and starts when auth comes up; no stack trace', async () => {
    const [authPort, authInternalPort, intakePort] = await Promise.all([freePort(), freePort(), freePort()]);
    const registry = await serveClinicRegistry([{ ik: '510000001', departments: ['2300'] }]);
    const env = {
      ...isolatedEnvironment(namespace, run.redisKeyPrefix),
      SERVICE_CLIENT_SECRET: randomBytes(32).toString('hex'),
      AUTH_PORT: String(authPort),
      AUTH_INTERNAL_PORT: String(authInternalPort),
      AUTH_URL: `http://127.0.0.1:${authPort}`,
      ROUTING_URL: registry.url,
      LOG_LEVEL: 'info',
    };
    try {
      const intake = await processes.start('intake', 'intake', { port: intakePort, env, waitUntilReady: false });
      // Intake reads the clinic registry at start with a service token from auth, which is not there yet.
      await waitFor(() => intake.output().includes('waiting for auth') || !processes.isRunning('intake'), {
        timeoutMs: 30_000,
        what: 'intake to say that it waits for auth',
      });
      expect(processes.isRunning('intake')).toBe(true);

      auth = await launchStack({
        mode: 'in-process',
        isolate: false,
        provision: false,
        services: ['auth'],
        ports: 'configured',
        env: { ...env, LOG_LEVEL: 'silent' },
      });
      await waitFor(async () => (await fetch(`${intake.probeUrl}/health/ready`).catch(() => undefined))?.status === 200, {
        timeoutMs: 30_000,
        what: 'intake to become ready',
      });

      const lines = logLines(intake.output());
      expect(lines.filter((line) => line.msg.startsWith('waiting for')).map((line) => line.msg)).toEqual([`waiting for auth at http://127.0.0.1:${authPort}`]);
      expect(lines.filter((line) => line.msg.includes('answered after'))).toHaveLength(1);
      // Nothing worse than the one notice, and no stack trace anywhere.
      // (The development key of data at rest warns on purpose.)
      const warnings = lines.filter((line) => line.level >= 40 && !line.msg.includes('with the development key'));
      expect(warnings.map((line) => line.msg)).toEqual([`waiting for auth at http://127.0.0.1:${authPort}`]);
      expect(intake.output()).not.toMatch(/"stack"|\n\s+at .+:\d+:\d+/);
    } finally {
      await registry.stop();
    }
  }, 90_000);

  it('gives up after STARTUP_TIMEOUT_MS with one line per unreachable piece, and exits 1', async () => {
    const [database, broker] = await Promise.all([freePort(), freePort()]);
    const alone = await processes.start('notifier', 'notifier', {
      env: {
        ...isolatedEnvironment(uniqueName('start')),
        DATABASE_URL: `postgresql://postgres@127.0.0.1:${database}/bedrequest`,
        AMQP_URL: `amqp://guest:guest@127.0.0.1:${broker}`,
        STARTUP_TIMEOUT_MS: '1500',
      },
      waitUntilReady: false,
    });
    expect((await processes.exited('notifier')).code).toBe(1);
    // The setting took effect: each line says how long it waited, under 10 s (the default is 60 s,
    // and would also outlast this test). How long the process took in all is not a test's to
    // measure: loading the bundle alone took up to 13 s in a clean-clone CI run on a loaded machine.
    // Nothing on stdout (the run's LOG_LEVEL is silent): what it wrote is the two lines on stderr.
    expect(alone.output().trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          `^notifier: PostgreSQL at 127\\.0\\.0\\.1:${database} is not reachable \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${database}; waited \\d\\.\\d s\\): start it \\(\`docker compose up -d postgres\`\\) or point DATABASE_URL at a running one$`,
        ),
      ),
      expect.stringMatching(
        new RegExp(
          `^notifier: RabbitMQ at 127\\.0\\.0\\.1:${broker} is not reachable \\(connect ECONNREFUSED 127\\.0\\.0\\.1:${broker}; waited \\d\\.\\d s\\): start it \\(\`docker compose up -d rabbitmq\`\\) or point AMQP_URL at a running one$`,
        ),
      ),
    ]);
    expect(alone.output()).not.toContain('"stack"');
  }, 60_000);
});
