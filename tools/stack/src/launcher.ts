import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology, freePort, uniqueName } from '@bedrequest/testing';
import { adminProcess, spawnService, untilReady, type OutputHandling, type ServiceProcess } from './child-process';
import { isolatedEnvironment, localDefaults, schemasOf } from './environment';
import { SERVICES, serviceEntry, type ServiceName } from './services';

/**
 * - `in-process`: the services inside the calling process, from their sources (integration tests:
 *   fast, no build);
 * - `processes`: each service a process of its own from dist, as `npm start` and the Docker image
 *   run them (faults, the benchmark, `npm start`, tests that need two processes of one service).
 */
export type StackMode = 'in-process' | 'processes';

export interface LaunchOptions {
  readonly mode: StackMode;
  /** The services' environment, on top of the calling process's. */
  readonly env?: Record<string, string>;
  /**
   * A label for a namespace of the stack's own (schemas, broker namespace, Redis key prefix: see
   * isolatedEnvironment), removed again by `stop()`. Default `stack`; false: the environment as
   * given (`npm start`, the benchmark's own database).
   */
  readonly isolate?: string | false;
  /** Which services to start (default: all six), in the order of services.json. */
  readonly services?: readonly ServiceName[];
  /** `free` (default): ports picked at start; `configured`: each service's variable, or its default (`npm start`). */
  readonly ports?: 'free' | 'configured';
  /** processes: Node options of every service process (e.g. `--cpu-prof`, `--require` of a preload). */
  readonly nodeArgs?: readonly string[];
  /** processes: what becomes of their output (default: discarded). */
  readonly output?: OutputHandling;
  /** processes: each in a process group of its own, so that a Ctrl-C at the terminal reaches only the launcher. */
  readonly ownProcessGroup?: boolean;
  /** processes: how long an instance may take to answer /health/ready (default 90 s). */
  readonly readyTimeoutMs?: number;
}

/** A service started inside this process (in-process.ts); `stop` ends it. */
export interface InProcessService {
  readonly url: string;
  readonly probeUrl: string;
  stop(): Promise<void>;
}

/**
 * How services start inside this process, and the admin command line with them: in-process.ts, given
 * by `launchStack` (index.ts). Kept out of this file so that `npm start`'s bundle, which runs only
 * processes, does not carry every service's code.
 */
export interface InProcessRunner {
  start(service: ServiceName, env: Record<string, string>): Promise<InProcessService>;
  admin(argv: readonly string[], env: Record<string, string>): Promise<{ code: number; out: string[]; err: string[] }>;
}

/** One running instance of a service (a stack may run several of one service: `notifier-2`). */
export interface Instance {
  readonly name: string;
  readonly service: ServiceName;
  readonly port: number;
  readonly url: string;
  /** Its /health/* and /metrics: the internal port of the gateway and the web app, the service's own port otherwise. */
  readonly probeUrl: string;
  /** Its process id: this process's for an in-process instance. */
  readonly pid: number;
  /** What its process wrote (output `capture`); empty otherwise. */
  output(): string;
}

export interface InstanceOptions {
  /** Variables on top of the stack's environment. */
  readonly env?: Record<string, string>;
  /** Its port (default: a free one). */
  readonly port?: number;
  /** processes: another script to run instead of `dist/apps/<service>/main.cjs` (one with test hooks). */
  readonly entry?: string;
  /** Resolve once it answers /health/ready (default), or as soon as it was started. */
  readonly waitUntilReady?: boolean;
}

interface Running {
  readonly instance: Instance;
  readonly launch: { service: ServiceName; options: InstanceOptions & { port: number; internalPort?: number } };
  readonly stop: () => Promise<void>;
  readonly process?: ServiceProcess;
}

const READY_TIMEOUT_MS = 90_000;

/** The one launcher of the whole stack, for every test tier, the fault suite, the benchmark and `npm start`. */
export class Stack {
  private readonly running = new Map<string, Running>();
  private readonly launches = new Map<string, Running['launch']>();

  private constructor(
    readonly mode: StackMode,
    /** The environment every service of the stack got (and `admin` uses). */
    readonly env: Record<string, string>,
    private readonly options: LaunchOptions,
    private readonly inProcess: InProcessRunner | undefined,
  ) {}

  /** Launches a stack; `inProcess` is needed for mode `in-process` (launchStack of index.ts gives it). */
  static async launch(options: LaunchOptions, inProcess?: InProcessRunner): Promise<Stack> {
    if (options.mode === 'in-process' && !inProcess) throw new Error('an in-process stack needs the in-process runner: use launchStack');
    const isolation = options.isolate === false ? {} : isolatedEnvironment(uniqueName(options.isolate ?? 'stack'), process.env.REDIS_KEY_PREFIX ?? '');
    const env: Record<string, string> = { ...localDefaults(), ...definedOnly(process.env), ...isolation, ...options.env };
    const services = options.services ?? SERVICES;
    // Every address first, so that the services find each other whatever order they come up in.
    const ports = new Map<ServiceName, { port: number; internalPort?: number }>();
    for (const name of services) {
      const entry = serviceEntry(name);
      const portOf = async (variable: string, fallback: number) => (options.ports === 'configured' ? Number(env[variable] ?? fallback) : await freePort());
      ports.set(name, {
        port: await portOf(entry.port.variable, entry.port.default),
        ...(entry.internalPort ? { internalPort: await portOf(entry.internalPort.variable, entry.internalPort.default) } : {}),
      });
    }
    for (const [name, { port }] of ports) env[serviceEntry(name).url] = `http://127.0.0.1:${port}`;
    const stack = new Stack(options.mode, env, options, inProcess);
    try {
      // All at once: each service waits for those it needs, as in production.
      await Promise.all([...ports].map(([name, assigned]) => stack.start(name, name, assigned)));
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  get gatewayUrl(): string {
    return this.url('gateway');
  }

  get webUrl(): string {
    return this.url('web');
  }

  /** The stack's namespace: its broker objects, schemas and Redis keys are named after it. */
  get namespace(): string {
    return this.env.AMQP_NAMESPACE ?? 'bedrequest';
  }

  instance(name: string): Instance {
    const running = this.running.get(name);
    if (!running) throw new Error(`${name} is not running`);
    return running.instance;
  }

  url(name: string): string {
    return this.instance(name).url;
  }

  probeUrl(name: string): string {
    return this.instance(name).probeUrl;
  }

  instances(): Instance[] {
    return [...this.running.values()].map((running) => running.instance);
  }

  /** Starts (another) instance of a service; `name` names it (`notifier-2`). */
  async start(name: string, service: ServiceName, options: InstanceOptions & { internalPort?: number } = {}): Promise<Instance> {
    if (this.running.has(name)) throw new Error(`${name} is already running`);
    const entry = serviceEntry(service);
    const port = options.port ?? (await freePort());
    const internalPort = entry.internalPort ? (options.internalPort ?? (await freePort())) : undefined;
    const launch = { service, options: { ...options, port, ...(internalPort === undefined ? {} : { internalPort }) } };
    this.launches.set(name, launch);
    const env: Record<string, string> = {
      ...this.env,
      [entry.port.variable]: String(port),
      ...(entry.internalPort && internalPort !== undefined ? { [entry.internalPort.variable]: String(internalPort) } : {}),
      ...options.env,
    };
    const running = this.mode === 'in-process' ? await this.startInProcess(name, launch, env) : await this.startProcess(name, launch, env);
    this.running.set(name, running);
    if (this.mode === 'processes' && options.waitUntilReady !== false) {
      await untilReady(name, running.instance.probeUrl, this.options.readyTimeoutMs ?? READY_TIMEOUT_MS, running.process).catch((error: unknown) => {
        this.running.delete(name);
        throw error;
      });
    }
    return running.instance;
  }

  /** Starts an instance again as it was started before (same port, environment and entry). */
  async restart(name: string): Promise<Instance> {
    const launch = this.launches.get(name);
    if (!launch) throw new Error(`${name} was never started`);
    if (this.isRunning(name)) throw new Error(`${name} is still running`);
    this.running.delete(name);
    return this.start(name, launch.service, launch.options);
  }

  isRunning(name: string): boolean {
    const running = this.running.get(name);
    return running !== undefined && (running.process?.isRunning() ?? true);
  }

  /** Graceful stop (SIGTERM for a process, SIGKILL after 20 s), waiting for it to end. */
  async stopInstance(name: string): Promise<void> {
    const running = this.running.get(name);
    if (!running) return;
    this.running.delete(name);
    await running.stop();
  }

  /** processes: sends `signal` (default SIGKILL: no clean-up of any kind) and resolves with the signal it died of. */
  async kill(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<NodeJS.Signals | null> {
    const process = this.processOf(name);
    process.child.kill(signal);
    const { signal: received } = await process.exited;
    this.running.delete(name);
    return received;
  }

  /** processes: how it ended (a service that gave up at start exits 1). */
  exited(name: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return this.processOf(name).exited;
  }

  /** processes: the resident set size of each running instance, in MiB. */
  residentMemory(): Record<string, number> {
    return Object.fromEntries(
      [...this.running.keys()].map((name) => {
        const kib = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${this.processOf(name).child.pid}/status`, 'utf8'))?.[1] ?? 0);
        return [name, Math.round((kib / 1024) * 10) / 10];
      }),
    );
  }

  /** `npm run admin -- …argv` against this stack; its output, or a rejection with its one-line error. */
  async admin(...argv: string[]): Promise<string> {
    const { code, out, err } = this.inProcess && this.mode === 'in-process' ? await this.inProcess.admin(argv, this.env) : await adminProcess(argv, this.env);
    if (code !== 0) throw new Error(`npm run admin -- ${argv.slice(0, 2).join(' ')} exited ${code}: ${err.join(' ')}`);
    return out.join('\n');
  }

  /** Logs a party in through the gateway. */
  async login(username: string, password: string): Promise<{ accessToken: string; refreshToken: string; partyId: string }> {
    const response = await fetch(`${this.gatewayUrl}/api/v1/token/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', connection: 'close' },
      body: JSON.stringify({ username, password }),
    });
    if (response.status !== 200) throw new Error(`login of ${username} answered ${response.status}`);
    const { accessToken, refreshToken } = (await response.json()) as { accessToken: string; refreshToken: string };
    const claims = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string };
    return { accessToken, refreshToken, partyId: claims.sub };
  }

  /**
   * Stops every instance, newest first, and, for an isolated stack, removes its broker objects and
   * schemas. The Redis keys go with the test run's prefix (tools/jest/global-teardown.cjs).
   */
  async stop(): Promise<void> {
    for (const name of [...this.running.keys()].reverse()) await this.stopInstance(name).catch(() => undefined);
    if (this.options.isolate === false) return;
    await deleteBrokerTopology(this.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672', declareTopology(this.namespace)).catch(() => undefined);
    const pool = new Pool({ connectionString: this.env.DATABASE_URL, max: 1 });
    pool.on('error', () => undefined);
    try {
      for (const schema of schemasOf(this.env)) await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    } finally {
      await pool.end();
    }
  }

  private processOf(name: string): ServiceProcess {
    const process = this.running.get(name)?.process;
    if (!process) throw new Error(this.mode === 'in-process' ? `${name} runs in this process: it has no process of its own` : `${name} is not running`);
    return process;
  }

  private async startInProcess(name: string, launch: Running['launch'], env: Record<string, string>): Promise<Running> {
    if (!this.inProcess) throw new Error('no in-process runner');
    const started = await this.inProcess.start(launch.service, env);
    const instance = {
      name,
      service: launch.service,
      port: launch.options.port,
      url: started.url,
      probeUrl: started.probeUrl,
      pid: process.pid,
      output: () => '',
    };
    return { instance, launch, stop: () => started.stop() };
  }

  private async startProcess(name: string, launch: Running['launch'], env: Record<string, string>): Promise<Running> {
    const { service, options } = launch;
    const { port, internalPort } = options;
    const child = spawnService(name, service, {
      env,
      ...(options.entry ? { entry: options.entry } : {}),
      ...(this.options.nodeArgs ? { nodeArgs: this.options.nodeArgs } : {}),
      output: this.options.output ?? 'discard',
      ...(this.options.ownProcessGroup ? { ownProcessGroup: true } : {}),
    });
    const url = `http://127.0.0.1:${port}`;
    const probeUrl = internalPort === undefined ? url : `http://127.0.0.1:${internalPort}`;
    return { instance: { name, service, port, url, probeUrl, pid: child.child.pid ?? 0, output: child.output }, launch, stop: child.stop, process: child };
  }
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
