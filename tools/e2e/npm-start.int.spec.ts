import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { declareTopology } from '@bedrequest/contracts';
import { buildServices } from '@bedrequest/stack';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { deleteBrokerTopology, freePort, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';

/**
 * `npm start` as a user runs it: `node tools/start.mjs` in a child process, on ports of its own and in
 * a broker namespace, schemas and Redis prefix of its own; everything it and the services write is
 * collected, to check what reaches the terminal. Built beforehand (the test run's one build) and
 * started with SKIP_BUILD: Nx without its daemon copies a cached build's outputs again (dist/ and
 * the generated Prisma clients, deleted first), under the other test files that read them.
 */
/** The clinic of the restart check: it offers orthopaedics (2300), what the fixture bundle asks for. */
const CLINIC = '510000252';

describe('npm start', () => {
  const run = testEnvironment();
  const namespace = uniqueName('start');
  let output = '';
  let child: ReturnType<typeof spawn> | undefined;

  afterAll(async () => {
    // After a failure: SIGTERM, so that npm start stops its services (each in a process group of its
    // own, they would outlive a SIGKILL of npm start); SIGKILL only if that takes too long.
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      const force = setTimeout(() => child!.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(force);
    }
    await deleteBrokerTopology(run.amqpUrl, declareTopology(namespace)).catch(() => undefined);
  }, 40_000);

  it('starts all six services, prints the API and the inbox, answers, restarts a service that dies while the rest answers, and stops cleanly on Ctrl-C', async () => {
    const [gateway, gatewayInternal, web, webInternal, auth, intake, routing, notifier, authInternal, intakeInternal, routingInternal, notifierInternal] =
      await Promise.all(Array.from({ length: 12 }, freePort));
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
      AUTH_INTERNAL_PORT: String(authInternal),
      INTAKE_INTERNAL_PORT: String(intakeInternal),
      ROUTING_INTERNAL_PORT: String(routingInternal),
      NOTIFIER_INTERNAL_PORT: String(notifierInternal),
      AMQP_NAMESPACE: namespace,
      AUTH_DB_SCHEMA: `${namespace}_auth`,
      INTAKE_DB_SCHEMA: `${namespace}_intake`,
      ROUTING_DB_SCHEMA: `${namespace}_routing`,
      NOTIFIER_DB_SCHEMA: `${namespace}_notifier`,
      REDIS_KEY_PREFIX: `${run.redisKeyPrefix}${namespace}:`,
      LOG_LEVEL: 'info',
      NO_COLOR: '1',
      SKIP_BUILD: '1',
    };
    buildServices();
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
      ...[
        [auth, authInternal],
        [intake, intakeInternal],
        [routing, routingInternal],
        [notifier, notifierInternal],
      ].map(([port, internal]) => [`http://127.0.0.1:${port}`, `http://127.0.0.1:${internal}`] as const),
    ] as const) {
      for (const path of ['/metrics', '/health/ready', '/health/live']) {
        expect({ publicUrl, path, status: (await fetch(`${publicUrl}${path}`)).status }).toEqual({ publicUrl, path, status: 404 });
        expect({ internalUrl, path, status: (await fetch(`${internalUrl}${path}`)).status }).toEqual({ internalUrl, path, status: 200 });
      }
      expect(await (await fetch(`${internalUrl}/metrics`)).text()).toContain('http_requests_total');
    }

    // Every service connects as its own user (docs/operations.md, "Provisioning"): none of the
    // stack's connections to PostgreSQL, RabbitMQ or Redis uses the local administrator.
    const users = await connectionUsersOf(child.pid!, run.databaseUrl);
    expect(users.postgres.length).toBeGreaterThanOrEqual(4);
    expect(users.rabbitmq.length).toBeGreaterThanOrEqual(4);
    expect(users.redis.length).toBeGreaterThanOrEqual(2);
    expect(new Set(users.postgres)).toEqual(new Set(['auth', 'intake', 'routing', 'notifier'].map((service) => `${namespace}_${service}_app`)));
    expect(new Set(users.rabbitmq)).toEqual(new Set(['gateway', 'intake', 'routing', 'notifier'].map((service) => `${namespace}_${service}`)));
    expect(new Set(users.redis)).toEqual(new Set(['auth', 'web', 'gateway'].map((service) => `${namespace}_${service}`)));

    // A service that dies is started again after a back-off, and says so, while the others keep
    // answering (docs/operations.md, "Stopping a service"): kill -9 of routing, whose registry the
    // gateway and intake keep in memory.
    const admin = (...argv: string[]) =>
      promisify(execFile)(process.execPath, [join(__dirname, '..', 'admin.mjs'), ...argv], { cwd: join(__dirname, '..', '..'), env });
    await admin('clinic', 'upsert', '--ik', CLINIC, '--name', 'Rehaklinik Neustart', '--departments', '2300');
    await admin(
      'user',
      'create',
      '--role',
      'referrer',
      '--username',
      'restart-referrer',
      '--password',
      'restart-referrer-pw',
      '--ik',
      FIXTURE_REQUESTER_IK,
      '--fhir-base',
      FIXTURE_FHIR_BASE,
    );
    const login = await fetch(`${gatewayUrl}/api/v1/token/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'restart-referrer', password: 'restart-referrer-pw' }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const post = async () => {
      const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
      const response = await fetch(`${gatewayUrl}/api/v2/fhir/Bundle`, {
        method: 'POST',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/fhir+json' },
        body: JSON.stringify(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC] })),
      });
      if (response.status !== 202) throw new Error(`the bundle was answered ${response.status}: ${await response.text()}`);
      return identifier;
    };
    const answering = async () => ({
      ready: (await fetch(`http://127.0.0.1:${gatewayInternal}/health/ready`)).status,
      clinics: (await fetch(`${gatewayUrl}/api/v1/kliniken`, { headers: { authorization: `Bearer ${accessToken}` } })).status,
      inbox: (await fetch(`http://127.0.0.1:${web}/inbox/login`)).status,
    });
    expect(await answering()).toEqual({ ready: 200, clinics: 200, inbox: 200 });
    // The gateway knows the clinic (routing's broadcast of its registration has come), as it must to
    // take a bundle for it while routing is down.
    await waitFor(
      async () => {
        const clinics = await fetch(`${gatewayUrl}/api/v1/kliniken`, { headers: { authorization: `Bearer ${accessToken}` } });
        return JSON.stringify(await clinics.json()).includes(CLINIC);
      },
      { what: 'the gateway to know the clinic' },
    );

    const killedAt = Date.now();
    process.kill(listeningPid(routing!), 'SIGKILL');
    await waitFor(() => output.includes('[start]    routing exited with signal SIGKILL; restarting in 1 s'), { what: 'npm start to say it restarts routing' });
    // While routing is down (until the launcher says it is back), the rest answers and takes requests.
    expect(output).not.toContain('routing restarted');
    expect(await answering()).toEqual({ ready: 200, clinics: 200, inbox: 200 });
    const whileDown = await post();
    await waitFor(() => output.includes('[start]    routing restarted'), { timeoutMs: 60_000, what: 'routing to be started again' });
    console.log(`npm start: routing killed with SIGKILL, ready again ${Date.now() - killedAt} ms later (1 s of it the back-off)`);
    expect(child.exitCode).toBeNull();
    expect(await answering()).toEqual({ ready: 200, clinics: 200, inbox: 200 });

    // End to end after the restart: the request sent while routing was down, and one sent now, reach
    // the clinic through intake and the restarted routing.
    const afterRestart = await post();
    const routingDb = new Client({ connectionString: run.databaseUrl });
    await routingDb.connect();
    try {
      await waitFor(
        async () => {
          const { rows } = await routingDb.query<{ request_identifier: string }>(
            `SELECT request_identifier FROM "${namespace}_routing".clinic_notification WHERE request_identifier = ANY($1)`,
            [[whileDown, afterRestart]],
          );
          return rows.length === 2;
        },
        { what: 'routing to notify the clinic of both requests' },
      );
    } finally {
      await routingDb.end();
    }

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output).toContain('[start]    stopped');
  }, 300_000);
});

/** The process listening on a local TCP port (`ss`). */
function listeningPid(port: number): number {
  const line = execFileSync('ss', ['-tlnpH', `sport = :${port}`], { encoding: 'utf8' });
  const pid = Number(/pid=(\d+)/.exec(line)?.[1]);
  if (!pid) throw new Error(`nothing listens on port ${port}`);
  return pid;
}

/**
 * The users the connections of the processes below `pid` log in as, found by their local ports
 * (`ss`): PostgreSQL's from pg_stat_activity, RabbitMQ's from `rabbitmqctl list_connections`,
 * Redis's from CLIENT LIST.
 */
async function connectionUsersOf(pid: number, databaseUrl: string): Promise<{ postgres: string[]; rabbitmq: string[]; redis: string[] }> {
  const parents = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const tree = new Set([pid]);
  for (let grown = true; grown;) {
    grown = false;
    for (const [child, parent] of parents) {
      if (tree.has(parent) && !tree.has(child)) {
        tree.add(child);
        grown = true;
      }
    }
  }
  const portsTo = (serverPort: number) =>
    execFileSync('ss', ['-tnpH', 'state', 'established', `dport = :${serverPort}`], { encoding: 'utf8' })
      .split('\n')
      .filter((line) => [...line.matchAll(/pid=(\d+)/g)].some((match) => tree.has(Number(match[1]))))
      .map((line) => Number(/^\S+\s+\S+\s+\S+:(\d+)\s/.exec(line)?.[1]));
  const admin = new Client({ connectionString: databaseUrl });
  await admin.connect();
  const postgresPorts = portsTo(5432);
  const { rows } = await admin.query<{ usename: string }>('SELECT usename FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [postgresPorts]);
  await admin.end();
  const brokerPorts = new Set(portsTo(5672));
  const rabbitmq = execFileSync('rabbitmqctl', ['-q', 'list_connections', 'peer_port', 'user'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([port]) => brokerPorts.has(Number(port)))
    .map(([, user]) => user!);
  const redisPorts = new Set(portsTo(6379));
  const redisAdmin = new Redis(testEnvironment().redisUrl, { lazyConnect: true });
  await redisAdmin.connect();
  const clients = String(await redisAdmin.call('CLIENT', 'LIST'));
  redisAdmin.disconnect();
  const redis = clients
    .split('\n')
    .filter((line) => redisPorts.has(Number(/ addr=\S+:(\d+) /.exec(line)?.[1])))
    .map((line) => / user=(\S+)/.exec(line)?.[1] ?? '');
  return { postgres: rows.map((row) => row.usename), rabbitmq, redis };
}
