import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const root = join(__dirname, '..', '..');

export const SERVICES = ['routing', 'auth', 'intake', 'notifier', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

const PORT_VARIABLE: Record<ServiceName, string> = {
  gateway: 'PORT',
  auth: 'AUTH_PORT',
  intake: 'INTAKE_PORT',
  routing: 'ROUTING_PORT',
  notifier: 'NOTIFIER_PORT',
};

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

export function buildServices(): void {
  const result = spawnSync('nx', ['run-many', '-t', 'build', '--outputStyle=static'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' } });
  if (result.status !== 0) throw new Error('the build failed');
}

export interface RunningService {
  name: string;
  process: ChildProcess;
  port: number;
  url: string;
}

/** The five services as separate processes from dist, like `npm start`, with their PIDs at hand. */
export class BenchStack {
  readonly services = new Map<string, RunningService>();
  private constructor(readonly env: NodeJS.ProcessEnv) {}

  static async start(env: Record<string, string>): Promise<BenchStack> {
    const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (name) => [name, await freePort()] as const))) as Record<ServiceName, number>;
    const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const name of SERVICES) fullEnv[PORT_VARIABLE[name]] = String(ports[name]);
    for (const name of SERVICES) fullEnv[`${name.toUpperCase()}_URL`] = `http://127.0.0.1:${ports[name]}`;
    fullEnv.AUTH_URL = `http://127.0.0.1:${ports.auth}`;
    const stack = new BenchStack(fullEnv);
    for (const name of SERVICES) await stack.startService(name, name, ports[name]);
    return stack;
  }

  get gatewayUrl(): string {
    return this.services.get('gateway')!.url;
  }

  /** Starts (another) instance of a service; `instance` names it (e.g. `notifier-2`). */
  async startService(instance: string, name: ServiceName, port?: number, extraEnv: Record<string, string> = {}): Promise<RunningService> {
    const servicePort = port ?? (await freePort());
    const child = spawn(process.execPath, [join(root, 'dist', 'apps', name, 'main.cjs')], {
      cwd: root,
      env: { ...this.env, [PORT_VARIABLE[name]]: String(servicePort), ...extraEnv },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    const service = { name: instance, process: child, port: servicePort, url: `http://127.0.0.1:${servicePort}` };
    this.services.set(instance, service);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${instance} exited during start-up`);
      const ready = await fetch(`${service.url}/health/ready`).then((response) => response.ok, () => false);
      if (ready) return service;
      if (Date.now() > deadline) throw new Error(`${instance} did not become ready`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async stopService(instance: string): Promise<void> {
    const service = this.services.get(instance);
    if (!service || service.process.exitCode !== null) return;
    const exited = new Promise((resolve) => service.process.once('exit', resolve));
    service.process.kill('SIGTERM');
    await exited;
    this.services.delete(instance);
  }

  /** Resident set size of each running service, in MiB. */
  residentMemory(): Record<string, number> {
    return Object.fromEntries(
      [...this.services.values()].map((service) => {
        const status = readFileSync(`/proc/${service.process.pid}/status`, 'utf8');
        const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
        return [service.name, Math.round((kib / 1024) * 10) / 10];
      }),
    );
  }

  async stop(): Promise<void> {
    for (const name of [...this.services.keys()].reverse()) await this.stopService(name);
  }
}
