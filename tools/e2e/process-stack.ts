// The five services as separate processes from dist, like `npm start`, with their PIDs at hand:
// for the benchmark (`npm run bench`: memory per process, a second notifier) and the fault suite
// (`npm run test:faults`: kill -9, restart on the same port). Nothing here knows about tests.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '@bedrequest/testing';

export { freePort };

/** The repository root: this file lives two levels down, and so does the bench bundle (tmp/bench). */
export const root = join(__dirname, '..', '..');

/** The V8 options every service process runs with, as `npm start` and the Docker image run them. */
const SERVICE_NODE_OPTIONS: readonly string[] = (JSON.parse(readFileSync(join(root, 'tools', 'service-node-options.json'), 'utf8')) as { nodeOptions: string[] }).nodeOptions;

/** Start order: routing and auth before intake and the gateway (both read the registry with auth's service tokens at start). */
export const SERVICES = ['routing', 'auth', 'intake', 'notifier', 'gateway'] as const;
export type ServiceName = (typeof SERVICES)[number];

const PORT_VARIABLE: Record<ServiceName, string> = {
  gateway: 'PORT',
  auth: 'AUTH_PORT',
  intake: 'INTAKE_PORT',
  routing: 'ROUTING_PORT',
  notifier: 'NOTIFIER_PORT',
};

/** `nx run-many -t build` (cached by Nx: a second call without changes takes about a second). */
export function buildServices(): void {
  const result = spawnSync('nx', ['run-many', '-t', 'build', '--outputStyle=static'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' } });
  if (result.status !== 0) throw new Error('the build failed');
}

export interface RunningService {
  /** The instance name, e.g. `notifier` or `notifier-2`. */
  name: string;
  service: ServiceName;
  process: ChildProcess;
  port: number;
  url: string;
  /** Where its /health/* and /metrics answer: its own port, the gateway's internal one. */
  probeUrl: string;
  /** What the process wrote to stdout (its pino log lines), when the stack captures output. */
  output(): string;
}

export interface ServiceLaunch {
  /** Variables on top of the stack's environment. */
  env?: Record<string, string>;
  /** Another script to run instead of `dist/apps/<service>/main.cjs` (e.g. one with test hooks). */
  entry?: string;
}

interface Launch extends ServiceLaunch {
  service: ServiceName;
  port: number;
}

const STOP_TIMEOUT_MS = 20_000;
/** Captured output kept per process: the newest part. */
const OUTPUT_LIMIT = 4 * 2 ** 20;

export interface StackOptions {
  /** Node options for every service process (e.g. `--require` of a preloaded module). */
  nodeArgs?: readonly string[];
  /** Keep each process's stdout (its log) for `output()`; otherwise it is discarded. */
  captureOutput?: boolean;
}

/** The five services as separate processes from dist, like `npm start`, with their PIDs at hand. */
export class ProcessStack {
  readonly services = new Map<string, RunningService>();
  /** How each instance was started, so that it can be started again the same way (same port). */
  private readonly launches = new Map<string, Launch>();

  private constructor(
    readonly env: NodeJS.ProcessEnv,
    private readonly options: StackOptions,
  ) {}

  static async start(env: Record<string, string>, options: StackOptions = {}): Promise<ProcessStack> {
    const ports = Object.fromEntries(await Promise.all(SERVICES.map(async (name) => [name, await freePort()] as const))) as Record<ServiceName, number>;
    const fullEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const name of SERVICES) fullEnv[PORT_VARIABLE[name]] = String(ports[name]);
    for (const name of SERVICES) fullEnv[`${name.toUpperCase()}_URL`] = `http://127.0.0.1:${ports[name]}`;
    fullEnv.SERVICE_CLIENT_SECRET ??= randomBytes(32).toString('hex');
    const stack = new ProcessStack(fullEnv, options);
    try {
      for (const name of SERVICES) await stack.startService(name, name, ports[name]);
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  get gatewayUrl(): string {
    return this.url('gateway');
  }

  url(instance: string): string {
    const service = this.services.get(instance);
    if (!service) throw new Error(`${instance} is not running`);
    return service.url;
  }

  /** Starts (another) instance of a service; `instance` names it (e.g. `notifier-2`). */
  async startService(instance: string, name: ServiceName, port?: number, extraEnv: Record<string, string> = {}, launch: Omit<ServiceLaunch, 'env'> = {}): Promise<RunningService> {
    // Every gateway instance gets an internal port of its own for its probes and metrics.
    const env = name === 'gateway' && !extraEnv.INTERNAL_PORT ? { ...extraEnv, INTERNAL_PORT: String(await freePort()) } : extraEnv;
    return this.launch(instance, { service: name, port: port ?? (await freePort()), env, ...launch });
  }

  /** Starts an instance again as it was started before (same port, environment and entry). */
  async restartService(instance: string): Promise<RunningService> {
    const launch = this.launches.get(instance);
    if (!launch) throw new Error(`${instance} was never started`);
    if (this.isRunning(instance)) throw new Error(`${instance} is still running`);
    return this.launch(instance, launch);
  }

  isRunning(instance: string): boolean {
    const service = this.services.get(instance);
    return service !== undefined && service.process.exitCode === null && service.process.signalCode === null;
  }

  /** Graceful stop (SIGTERM), waiting for the exit; SIGKILL if it takes longer than 20 s. */
  async stopService(instance: string): Promise<void> {
    const service = this.services.get(instance);
    if (!service) return;
    if (this.isRunning(instance)) {
      const exited = new Promise((resolve) => service.process.once('exit', resolve));
      service.process.kill('SIGTERM');
      const force = setTimeout(() => service.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exited;
      clearTimeout(force);
    }
    this.services.delete(instance);
  }

  /** Sends `signal` (default SIGKILL: no clean-up of any kind) and resolves once the process is gone. */
  async killService(instance: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<NodeJS.Signals | null> {
    const service = this.services.get(instance);
    if (!service) throw new Error(`${instance} is not running`);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => service.process.once('exit', (_code, received) => resolve(received)));
    service.process.kill(signal);
    const received = await exited;
    this.services.delete(instance);
    return received;
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

  private async launch(instance: string, launch: Launch): Promise<RunningService> {
    const entry = launch.entry ?? join(root, 'dist', 'apps', launch.service, 'main.cjs');
    const child = spawn(process.execPath, [...SERVICE_NODE_OPTIONS, ...(this.options.nodeArgs ?? []), entry], {
      cwd: root,
      env: { ...this.env, [PORT_VARIABLE[launch.service]]: String(launch.port), ...launch.env },
      stdio: ['ignore', this.options.captureOutput ? 'pipe' : 'ignore', 'inherit'],
    });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT / 2);
    });
    const url = `http://127.0.0.1:${launch.port}`;
    const probeUrl = launch.env?.INTERNAL_PORT ? `http://127.0.0.1:${launch.env.INTERNAL_PORT}` : url;
    const service: RunningService = { name: instance, service: launch.service, process: child, port: launch.port, url, probeUrl, output: () => output };
    this.services.set(instance, service);
    this.launches.set(instance, launch);
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        this.services.delete(instance);
        throw new Error(`${instance} exited during start-up`);
      }
      const ready = await fetch(`${service.probeUrl}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then((response) => response.ok, () => false);
      if (ready) return service;
      if (Date.now() > deadline) {
        child.kill('SIGKILL');
        this.services.delete(instance);
        throw new Error(`${instance} did not become ready`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
