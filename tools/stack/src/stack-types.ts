import type { OutputHandling } from './child-process';
import type { ServiceName } from './services';

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
  /**
   * Provision the stack first (default): a database role, broker user and Redis user per service,
   * made with the local administrator's connections, and each service runs as its own
   * (docs/operations.md, "Provisioning"). False: every service uses the environment's connections,
   * and only the broker's topology is provisioned with them (for the services started at launch; an
   * instance started later on a namespace of its own needs `provisionTopology` first).
   */
  readonly provision?: boolean;
  /** Which services to start (default: all six), in the order of services.json. */
  readonly services?: readonly ServiceName[];
  /**
   * processes: instances of each service (default 1). The first is named after the service and is
   * the one the others find by its URL variable; the next are `<service>-2`, `<service>-3`, … on
   * ports of their own (a test puts a balancer before the gateways if it needs one).
   */
  readonly replicas?: number;
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
  /** Its /health/* and /metrics: the service's internal port. */
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
