// Each service's image, assembled as the Dockerfile assembles it: the bundle (dist/apps/<service>,
// from `nx run <service>:build`), tools/docker/healthcheck.cjs and a node_modules, but a node_modules
// holding only the packages the bundle requires and their production dependencies
// (runtime-files.mjs, which the Dockerfile's build stage runs), not the whole of it after
// `npm prune --omit=dev` as every image held before.
// Each is put in a folder of its own outside the repository, where nothing resolves from the
// repository's node_modules, and started there as the image's CMD starts it; all six together, so
// that intake, routing and the gateway find auth and each other as in a deployment. Each must answer
// its probes, and the image's HEALTHCHECK must pass. The sizes are logged: what every image held
// before and what its service needs.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { promisify } from 'node:util';
import { declareTopology } from '@bedrequest/contracts';
import { PRINCIPALS, provisionPlan, removeProvisioned } from '@bedrequest/provision';
import { SERVICES, buildServices, isolatedEnvironment, provisionTopology, root, serviceEntry, type ServiceName } from '@bedrequest/stack';
import { deleteBrokerTopology, freePort, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { packageClosure, requiredPackages, sizeOfFolders } from './runtime-files.mjs';

/** The image's CMD: `node --enable-source-maps <tools/service-node-options.json> main.cjs`. */
const NODE_ARGUMENTS = [
  '--enable-source-maps',
  ...(JSON.parse(readFileSync(join(root, 'tools', 'service-node-options.json'), 'utf8')) as { nodeOptions: string[] }).nodeOptions,
  'main.cjs',
];

/** Starting all six at once, each waiting for what it needs, takes a few seconds here. */
const READY_TIMEOUT_MS = 45_000;

/**
 * What `npm prune --omit=dev` leaves in node_modules, and the Dockerfile copies into every image:
 * each package of the lockfile not marked `dev`, where installed on this platform. Packages marked
 * `devOptional` stay: the Prisma CLI with Prisma Studio, and TypeScript, are optional peers of
 * @prisma/client as well as development dependencies, and npm removes them only with
 * `--omit=dev --omit=optional` (`npm ci --omit=dev --dry-run` lists the same packages).
 */
function prunedNodeModules(): string[] {
  const lockfile = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean }> };
  return Object.entries(lockfile.packages)
    .filter(([path, entry]) => path.startsWith('node_modules/') && !entry.dev && existsSync(join(root, path, 'package.json')))
    .map(([path]) => path);
}

interface Image {
  readonly service: ServiceName;
  readonly folder: string;
  /** Its node_modules' package folders (`node_modules/pino`, `node_modules/a/node_modules/b`). */
  readonly packages: readonly string[];
  /** The port of its probes: its own, or the internal one of the gateway and the web app. */
  readonly probePort: number;
  /** Its environment (the image's ENV and what a deployment gives it). */
  readonly env: Record<string, string>;
  process?: ChildProcess;
  output: string;
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

describe('each service runs from its own runtime files', () => {
  const run = testEnvironment();
  const namespace = uniqueName('runtime');
  const images = new Map<ServiceName, Image>();
  let base: string;
  let pruned: string[];

  beforeAll(async () => {
    buildServices();
    base = mkdtempSync(join(tmpdir(), 'bedrequest-runtime-'));
    pruned = prunedNodeModules();
    const ports = new Map<ServiceName, { port: number; internalPort?: number }>();
    for (const service of SERVICES) {
      ports.set(service, { port: await freePort(), ...(serviceEntry(service).internalPort ? { internalPort: await freePort() } : {}) });
    }

    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'development',
      // The image listens on every address (HOST=0.0.0.0); here, loopback is enough.
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: run.databaseUrl,
      REDIS_URL: run.redisUrl,
      AMQP_URL: run.amqpUrl,
      ...isolatedEnvironment(namespace, run.redisKeyPrefix),
      SERVICE_CLIENT_SECRET: randomBytes(32).toString('hex'),
    };
    for (const [service, { port, internalPort }] of ports) {
      const entry = serviceEntry(service);
      env[entry.port.variable] = String(port);
      env[entry.url] = `http://127.0.0.1:${port}`;
      if (entry.internalPort && internalPort !== undefined) env[entry.internalPort.variable] = String(internalPort);
    }

    await Promise.all(
      SERVICES.map(async (service) => {
        const folder = join(base, service);
        await assemble(service, folder);
        const { port, internalPort } = ports.get(service)!;
        images.set(service, {
          service,
          folder,
          packages: packageClosure(root, [...new Set(bundlesOf(folder).flatMap((bundle) => requiredPackages(join(folder, bundle))))]),
          probePort: internalPort ?? port,
          // The folder alone: no NODE_PATH, and HOME there, so that not even ~/.node_modules is searched.
          env: { ...env, SERVICE: service, HOME: folder },
          output: '',
        });
      }),
    );
    logSizes();

    // They connect as the local administrator; the topology is provisioning's, as in production.
    await provisionTopology({ AMQP_URL: run.amqpUrl, AMQP_NAMESPACE: namespace });
    for (const image of images.values()) {
      const child = spawn(process.execPath, NODE_ARGUMENTS, { cwd: image.folder, env: image.env });
      child.stdout.on('data', (chunk: Buffer) => (image.output += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (image.output += chunk.toString('utf8')));
      image.process = child;
    }
  }, 120_000);

  afterAll(async () => {
    await Promise.all([...images.values()].map((image) => stop(image.process)));
    await deleteBrokerTopology(run.amqpUrl, declareTopology(namespace)).catch(() => undefined);
    if (base) rmSync(base, { recursive: true, force: true });
  }, 30_000);

  /** Service | bundle | pruned node_modules | its own packages, in MiB (and packages). */
  function logSizes(): void {
    const today = `${mib(sizeOfFolders(root, pruned))} (${pruned.length})`;
    const rows = SERVICES.map((service) => images.get(service)!).map((image) => [
      image.service,
      mib(sizeOfFolders(root, [join('dist', 'apps', image.service)])),
      today,
      `${mib(sizeOfFolders(image.folder, image.packages))} (${image.packages.length})`,
    ]);
    const table = [['service', 'bundle', 'pruned node_modules', 'own packages'], ...rows];
    const widths = table[0]!.map((_, column) => Math.max(...table.map((row) => row[column]!.length)));
    console.log(
      ['Runtime files per image, MiB (packages):', ...table.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  '))].join('\n'),
    );
  }

  it('puts the files where the Dockerfile puts them, and starts each service with its CMD', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY --from=build /repo/dist/apps/${SERVICE} ./');
    expect(dockerfile).toContain('COPY tools/docker/healthcheck.cjs ./healthcheck.cjs');
    expect(dockerfile).toContain('node tools/deploy/runtime-files.mjs dist/*/${SERVICE}/*.cjs /runtime');
    expect(dockerfile).toContain('COPY --from=build /runtime/node_modules ./node_modules');
    expect(dockerfile).not.toContain('COPY --from=build /repo/node_modules');
    expect(JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]!)).toEqual(['node', ...NODE_ARGUMENTS]);
  });

  it.each([
    ['auth', 'user list'],
    ['routing', 'clinic list'],
    ['intake', 'intake keys'],
    ['notifier', 'notifier keys'],
  ] as const)("%s's admin command line runs in its image (kubectl exec … node cli-main.cjs %s)", async (service, command) => {
    const image = images.get(service)!;
    const run = promisify(execFile)(process.execPath, ['cli-main.cjs', ...command.split(' ')], { cwd: image.folder, env: image.env });
    await expect(run).resolves.toEqual(expect.objectContaining({ stderr: '' }));
  });

  it('the folders lie outside the repository, with no node_modules above them', () => {
    expect(relative(root, base).startsWith('..')).toBe(true);
    for (let directory = base; directory !== dirname(directory); directory = dirname(directory)) {
      expect(existsSync(join(dirname(directory), 'node_modules'))).toBe(false);
    }
  });

  it.each(SERVICES)('%s needs only packages that npm prune --omit=dev keeps, and fewer than all of them', (service) => {
    const { packages } = images.get(service)!;
    expect(packages.filter((folder) => !pruned.includes(folder))).toEqual([]);
    expect(packages.length).toBeLessThan(pruned.length);
  });

  it.each(SERVICES)("%s answers its probes from its own folder, and the image's HEALTHCHECK passes", async (service) => {
    const image = images.get(service)!;
    const probe = (path: string) =>
      fetch(`http://127.0.0.1:${image.probePort}${path}`, { signal: AbortSignal.timeout(2_000) }).then(
        (response) => response.status,
        () => undefined,
      );
    await waitFor(async () => (await probe('/health/ready')) === 200 || image.process?.exitCode !== null, {
      timeoutMs: READY_TIMEOUT_MS,
      intervalMs: 100,
      what: `${service} to become ready`,
    }).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; it wrote:\n${image.output}`);
    });
    if (image.process?.exitCode !== null) throw new Error(`${service} exited ${image.process?.exitCode}; it wrote:\n${image.output}`);

    expect(await probe('/health/live')).toBe(200);
    // HEALTHCHECK CMD ["node", "healthcheck.cjs"], in the image's working directory and environment.
    const healthcheck = spawnSync(process.execPath, ['healthcheck.cjs'], { cwd: image.folder, env: image.env });
    expect(healthcheck.status).toBe(0);
  });
});

describe('the provisioning job runs from its own runtime files', () => {
  const run = testEnvironment();
  const namespace = uniqueName('runtimeprov');
  const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
  const provisionStage = dockerfile.slice(dockerfile.indexOf('AS provision'), dockerfile.indexOf('AS missing-image'));
  let folder: string;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    ...isolatedEnvironment(namespace, run.redisKeyPrefix),
    PROVISION_DATABASE_URL: run.databaseUrl,
    PROVISION_AMQP_URL: run.amqpUrl,
    PROVISION_REDIS_URL: run.redisUrl,
  };
  // The passwords, as the secret store would give them (the image's NODE_ENV is production).
  for (const [service, principal] of Object.entries(PRINCIPALS)) {
    for (const [kind, variable] of [
      ['database', 'DATABASE'],
      ['broker', 'AMQP'],
      ['redis', 'REDIS'],
    ] as const) {
      if (kind in principal) env[`${service.toUpperCase()}_${variable}_PASSWORD`] = randomBytes(16).toString('hex');
    }
  }
  env.KEDA_DATABASE_PASSWORD = randomBytes(16).toString('hex');

  beforeAll(async () => {
    buildServices();
    folder = mkdtempSync(join(tmpdir(), 'bedrequest-runtime-provision-'));
    // COPY --from=build /repo/dist/tools/provision ./ and the migrations the stage copies.
    cpSync(join(root, 'dist', 'tools', 'provision'), folder, { recursive: true, dereference: true });
    for (const [, migrations] of provisionStage.matchAll(/^COPY (apps\/\w+\/prisma\/migrations) /gm)) {
      cpSync(join(root, migrations!), join(folder, migrations!), { recursive: true });
    }
    await promisify(execFile)(process.execPath, [join('tools', 'deploy', 'runtime-files.mjs'), join('dist', 'tools', 'provision', 'main.cjs'), folder], {
      cwd: root,
    });
  }, 120_000);

  afterAll(async () => {
    const plan = provisionPlan(env, { generatePasswords: false });
    await removeProvisioned(plan, { database: run.databaseUrl, redis: run.redisUrl, rabbitmqctl: 'rabbitmqctl' }).catch(() => undefined);
    await deleteBrokerTopology(run.amqpUrl, declareTopology(namespace)).catch(() => undefined);
    if (folder) rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  it("provisions every service's schema with the stage's CMD, in production", async () => {
    const command = JSON.parse(/^CMD (\[.*\])$/m.exec(provisionStage)![1]!) as string[];
    expect(command[0]).toBe('node');
    const { stdout } = await promisify(execFile)(process.execPath, command.slice(1), { cwd: folder, env: { ...env, HOME: folder } });
    for (const service of ['auth', 'intake', 'routing', 'notifier']) {
      expect(stdout).toContain(`PostgreSQL: schema ${env[`${service.toUpperCase()}_DB_SCHEMA`]}: migration 0001_baseline applied`);
    }
  }, 120_000);
});

/** The files of `service`'s image in `folder`, as the Dockerfile puts them in /app. */
async function assemble(service: ServiceName, folder: string): Promise<void> {
  // COPY --from=build /repo/dist/apps/${SERVICE} ./ and COPY tools/docker/healthcheck.cjs ./healthcheck.cjs
  cpSync(join(root, 'dist', 'apps', service), folder, { recursive: true, dereference: true });
  cpSync(join(root, 'tools', 'docker', 'healthcheck.cjs'), join(folder, 'healthcheck.cjs'));
  // Its own node_modules, by the command the Docker build stage would run.
  const bundles = bundlesOf(join(root, 'dist', 'apps', service)).map((bundle) => join('dist', 'apps', service, bundle));
  await promisify(execFile)(process.execPath, [join('tools', 'deploy', 'runtime-files.mjs'), ...bundles, folder], { cwd: root });
}

// The bundles in a service's build output (the Dockerfile's `dist/<apps>/${SERVICE}/<bundle>.cjs`):
// main.cjs, and cli-main.cjs where the service has part of the admin command line.
function bundlesOf(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.endsWith('.cjs'));
}

/** SIGTERM, as `docker stop` sends it; SIGKILL after 10 s. */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(force);
}
