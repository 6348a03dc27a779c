// `npm start`: checks that PostgreSQL, Redis and RabbitMQ answer (tools/preflight.mjs; one line per
// missing piece and exit 1 otherwise), builds the five services and runs them in the foreground
// against them, with one readable, prefixed log stream. Prints the gateway address once every
// service is ready. Ctrl-C (or SIGTERM) stops them gracefully and waits for them.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { prettyFactory } from 'pino-pretty';
import { checkInfrastructure } from './preflight.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { nodeOptions } = JSON.parse(readFileSync(join(root, 'tools', 'service-node-options.json'), 'utf8'));
const env = process.env;
const host = env.HOST ?? '127.0.0.1';
const services = [
  { name: 'auth', port: env.AUTH_PORT ?? '8081', color: 35 },
  { name: 'intake', port: env.INTAKE_PORT ?? '8082', color: 33 },
  { name: 'routing', port: env.ROUTING_PORT ?? '8083', color: 36 },
  { name: 'notifier', port: env.NOTIFIER_PORT ?? '8084', color: 34 },
  { name: 'gateway', port: env.PORT ?? '8080', color: 32 },
];
const gatewayUrl = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${services.at(-1).port}`;
// Health probes and metrics: every service's own port, the gateway's internal one (never the public port).
const probePorts = [...services.slice(0, -1).map((service) => service.port), env.INTERNAL_PORT ?? '9080'];
// The secret the services present to auth for their service tokens: one for this run, unless given.
const serviceClientSecret = env.SERVICE_CLIENT_SECRET ?? randomBytes(32).toString('hex');
// A service that waits in vain for another gives up after STARTUP_TIMEOUT_MS (default 60 s) with
// one line saying what it waited for; this script waits a little longer, so that line comes first.
const readyTimeoutMs = Number(env.STARTUP_TIMEOUT_MS ?? 60_000) + 15_000;
const useColor = process.stdout.isTTY && !env.NO_COLOR;
const paint = (color, text) => (useColor ? `\x1b[${color}m${text}\x1b[0m` : text);
const say = (text) => console.log(`${paint(1, '[start]')}    ${text}`);

function build() {
  say('building the services (nx run-many -t build)...');
  const result = spawnSync('nx', ['run-many', '-t', 'build', '--outputStyle=static'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' },
  });
  if (result.status !== 0) {
    say('the build failed; nothing was started');
    process.exit(1);
  }
}

function startService(service) {
  const entry = join(root, 'dist', 'apps', service.name, 'main.cjs');
  if (!existsSync(entry)) throw new Error(`missing ${entry}`);
  const child = spawn(process.execPath, ['--enable-source-maps', ...nodeOptions, entry], {
    cwd: root,
    env: {
      ...env,
      SERVICE_CLIENT_SECRET: serviceClientSecret,
      AUTH_URL: env.AUTH_URL ?? `http://127.0.0.1:${services[0].port}`,
      INTAKE_URL: env.INTAKE_URL ?? `http://127.0.0.1:${services[1].port}`,
      ROUTING_URL: env.ROUTING_URL ?? `http://127.0.0.1:${services[2].port}`,
      NOTIFIER_URL: env.NOTIFIER_URL ?? `http://127.0.0.1:${services[3].port}`,
    },
    // Own process group: Ctrl-C reaches this script, which stops the services in order.
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const prefix = paint(service.color, `[${service.name}]`.padEnd(11));
  const pretty = prettyFactory({ colorize: useColor, ignore: 'pid,hostname,service', translateTime: 'HH:MM:ss.l', singleLine: true });
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on('line', (line) => {
      const text = line.startsWith('{') ? pretty(line).trimEnd() : line;
      process.stdout.write(`${prefix}${text}\n`);
    });
  }
  return child;
}

/** Before anything is built or started: each of PostgreSQL, Redis and RabbitMQ that does not answer is one line. */
async function preflight() {
  const problems = await checkInfrastructure(env);
  if (problems.length === 0) return;
  for (const problem of problems) say(problem);
  say('nothing was started');
  process.exit(1);
}

async function waitUntilReady(children) {
  const deadline = Date.now() + readyTimeoutMs;
  const ready = async (url) => {
    try {
      return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).ok;
    } catch {
      return false;
    }
  };
  while (Date.now() < deadline) {
    if (children.some((child) => child.exitCode !== null)) return false;
    // The gateway's status endpoint asks auth: only once every probe says ready, so that no
    // request of this loop meets a service that is still starting.
    const probes = await Promise.all(probePorts.map((port) => ready(`http://127.0.0.1:${port}/health/ready`)));
    if (probes.every(Boolean) && (await ready(`${gatewayUrl}/api/v1/token/status`))) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

async function main() {
  await preflight();
  if (!env.SKIP_BUILD) build();
  say('starting auth, intake, routing, notifier and gateway...');
  const children = services.map((service) => ({ service, child: startService(service) }));
  let stopping = false;

  const stopAll = (reason, exitCode) => {
    if (stopping) return;
    stopping = true;
    say(`${reason}: stopping the services...`);
    // The gateway first, so no new requests arrive while the consumers drain.
    for (const { child } of [...children].reverse()) if (child.exitCode === null) child.kill('SIGTERM');
    const force = setTimeout(() => {
      for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
    }, 15_000);
    Promise.all(children.map(({ child }) => (child.exitCode !== null ? null : new Promise((r) => child.once('exit', r))))).then(() => {
      clearTimeout(force);
      say('stopped');
      process.exit(exitCode);
    });
  };

  for (const { service, child } of children) {
    child.once('exit', (code, signal) => {
      if (!stopping) stopAll(`${service.name} exited (${signal ?? `code ${code}`})`, 1);
    });
  }
  process.on('SIGINT', () => stopAll('Ctrl-C', 0));
  process.on('SIGTERM', () => stopAll('SIGTERM', 0));

  if (await waitUntilReady(children.map(({ child }) => child))) {
    say(paint(1, `Bed Occupancy Request Service is ready at ${gatewayUrl}`));
    say(`try: curl ${gatewayUrl}/api/v1/token/status   (Ctrl-C stops everything)`);
  } else if (!stopping) {
    stopAll(`the services did not become ready within ${readyTimeoutMs / 1000} s`, 1);
  }
}

main().catch((error) => {
  console.error(`[start] ${error.message}`);
  process.exit(1);
});
