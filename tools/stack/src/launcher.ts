import { readFileSync } from 'node:fs';
import { freePort, uniqueName } from '@bedrequest/testing';
import { adminProcess, spawnService, untilReady, type ServiceProcess } from './child-process';
import { isolatedEnvironment, localDefaults, provisionStack, provisionTopology, removeNamespace, type ProvisionedStack } from './environment';
import { SERVICES, serviceEntry, type ServiceName } from './services';
import type { InProcessRunner, Instance, InstanceOptions, LaunchOptions, StackMode } from './stack-types';

interface Running {
  readonly instance: Instance;
  readonly launch: { service: ServiceName; options: InstanceOptions & { port: number; internalPort?: number } };
  readonly stop: () => Promise<void>;
  readonly process?: ServiceProcess;
}

const READY_TIMEOUT_MS = 90_000;

/** The service whose command line each admin command is (tools/admin.mjs): it runs with that service's credentials. */
const ADMIN_COMMANDS: Record<string, ServiceName | undefined> = {
  clinic: 'routing',
  user: 'auth',
  audit: 'intake',
  request: 'intake',
  intake: 'intake',
  notifier: 'notifier',
};

/** The one launcher of the whole stack, for every test tier, the fault suite, the benchmark and `npm start`. */
export class Stack {
  private readonly running = new Map<string, Running>();
  private readonly launches = new Map<string, Running['launch']>();
  private provisioned?: ProvisionedStack;

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
    const stack = new Stack(options.mode, env, options, inProcess);
    try {
      if (options.provision !== false) stack.provisioned = await provisionStack(env);
      // Its services connect as the environment's administrator, and declare no topology either.
      else if (services.length > 0) await provisionTopology(env);
      if (options.mode === 'in-process' && options.ports !== 'configured') await stack.startInOrder(services);
      else await stack.startTogether(services);
      await stack.startReplicas(services, options.replicas ?? 1);
    } catch (error) {
      await stack.stop();
      throw error;
    }
    return stack;
  }

  /**
   * In this process, each service on a port the system picks as it binds (port 0): one after the
   * other in start order, each finding those before it at the addresses they got. No port is chosen
   * before it is bound, so none can be taken meanwhile (by another test's outgoing connection, say).
   * The gateway's WEB_PUBLIC_URL keeps its default: the web app comes last.
   */
  private async startInOrder(services: readonly ServiceName[]): Promise<void> {
    for (const name of services) {
      const instance = await this.start(name, name, { port: 0, internalPort: 0 });
      this.env[serviceEntry(name).url] = instance.url;
    }
  }

  /**
   * Every address first, then all at once: each service waits for those it needs, as in production.
   * Processes cannot report the port they bound, so free ones are chosen first (or the configured).
   */
  private async startTogether(services: readonly ServiceName[]): Promise<void> {
    const ports = new Map<ServiceName, { port: number; internalPort?: number }>();
    for (const name of services) {
      const entry = serviceEntry(name);
      const portOf = async (variable: string, fallback: number) =>
        this.options.ports === 'configured' ? Number(this.env[variable] ?? fallback) : await freePort();
      ports.set(name, {
        port: await portOf(entry.port.variable, entry.port.default),
        ...(entry.internalPort ? { internalPort: await portOf(entry.internalPort.variable, entry.internalPort.default) } : {}),
      });
    }
    for (const [name, { port }] of ports) this.env[serviceEntry(name).url] = `http://127.0.0.1:${port}`;
    await Promise.all([...ports].map(([name, assigned]) => this.start(name, name, assigned)));
  }

  /** The further instances of every service (`replicas`), all at once, once the first ones run. */
  private async startReplicas(services: readonly ServiceName[], replicas: number): Promise<void> {
    if (replicas > 1 && this.mode !== 'processes') throw new Error('replicas need mode processes: in one process the instances would share their metrics');
    const names = services.flatMap((service) => Array.from({ length: replicas - 1 }, (_, index) => [`${service}-${index + 2}`, service] as const));
    await Promise.all(names.map(([name, service]) => this.start(name, service)));
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
      ...this.provisioned?.envOf(service),
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

  /** The stack's principals (docs/operations.md, "Provisioning"); undefined for a stack launched with `provision: false`. */
  get plan(): ProvisionedStack['plan'] | undefined {
    return this.provisioned?.plan;
  }

  /**
   * Provisions the stack again with the same names and passwords, as an operator does after a
   * server lost what it kept in memory (Redis's ACL users, when it restarts without an ACL file).
   */
  async provisionAgain(): Promise<void> {
    if (this.provisioned) await this.provisioned.again();
  }

  /** What provisioning changed (one line each; empty for a stack launched with `provision: false`). */
  get provisioning(): readonly string[] {
    return this.provisioned?.changes ?? [];
  }

  /** `npm run admin -- …argv` against this stack, as the service the command belongs to; its output, or a rejection with its one-line error. */
  async admin(...argv: string[]): Promise<string> {
    const owner = ADMIN_COMMANDS[argv[0] ?? ''];
    const env = { ...this.env, ...(owner ? this.provisioned?.envOf(owner) : {}) };
    const { code, out, err } = this.inProcess && this.mode === 'in-process' ? await this.inProcess.admin(argv, env) : await adminProcess(argv, env);
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
    if (this.options.isolate !== false) await removeNamespace(this.env, this.provisioned);
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
