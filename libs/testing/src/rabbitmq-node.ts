import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const execute = promisify(execFile);

/**
 * A RabbitMQ node of a test's own beside the machine's broker (which stays as it is): its own node
 * name, AMQP and distribution ports (free ones), data, log and configuration in a folder of its
 * own, started with `rabbitmq-server -detached` and stopped by its own process id. One Erlang
 * scheduler (`+S 1`): a test machine has two cores, and three of these beside the services must
 * not take them all. Needs RabbitMQ's commands, and root (the node runs as the rabbitmq user, and
 * shares its Erlang cookie, so that nodes of one test can be clustered).
 */
export class RabbitMqNode {
  /** Its process id while it runs. */
  pid?: number;

  private constructor(
    /** `name@localhost`. */
    readonly node: string,
    readonly amqpPort: number,
    readonly distPort: number,
    readonly folder: string,
    private readonly plugins: readonly string[],
  ) {}

  /** Ports and a folder for a node; `config` adds lines to its rabbitmq.conf, `plugins` are enabled. */
  static async create(label: string, options: { config?: readonly string[]; plugins?: readonly string[] } = {}): Promise<RabbitMqNode> {
    const [amqpPort, distPort] = [await freePort(), await freePort()];
    const folder = mkdtempSync(join(tmpdir(), `rabbitmq-${label.replace(/[^a-z0-9]/gi, '')}-`));
    const name = `${label.replace(/[^a-z0-9_]/gi, '').toLowerCase()}${distPort}@localhost`;
    const node = new RabbitMqNode(name, amqpPort, distPort, folder, options.plugins ?? []);
    for (const sub of ['mnesia', 'log']) mkdirSync(join(folder, sub));
    // Without a listener of its own, the machine's /etc/rabbitmq/rabbitmq.conf would give it 5672.
    writeFileSync(join(folder, 'rabbitmq.conf'), [`listeners.tcp.local = 127.0.0.1:${amqpPort}`, ...(options.config ?? [])].join('\n') + '\n');
    writeFileSync(join(folder, 'enabled_plugins'), `[${node.plugins.join(', ')}].\n`);
    if (process.getuid?.() === 0) {
      const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'rabbitmq'], { encoding: 'utf8' })));
      chownRecursively(folder, uid!, gid!);
    }
    return node;
  }

  get amqpUrl(): string {
    return `amqp://guest:guest@127.0.0.1:${this.amqpPort}`;
  }

  /** Starts it (again) and resolves once its applications run. */
  async start(): Promise<void> {
    const pidFile = join(this.folder, 'rabbitmq.pid');
    rmSync(pidFile, { force: true });
    await execute('rabbitmq-server', ['-detached'], { env: this.environment(), timeout: 60_000 });
    try {
      await this.ctl('wait', pidFile, '--timeout', '90');
    } catch (error) {
      throw new Error(`${(error as Error).message}\n${this.logTail()}`);
    } finally {
      if (existsSync(pidFile)) this.pid = Number(readFileSync(pidFile, 'utf8').trim());
    }
  }

  /** `start`, and once more after a failed start (on a busy machine a first boot sometimes gives up). */
  async startOrRetry(): Promise<void> {
    try {
      await this.start();
    } catch (error) {
      console.warn(`RabbitMQ node ${this.node} did not start, trying once more: ${(error as Error).message}`);
      await this.stop();
      await this.start();
    }
  }

  /** SIGTERM to its own process (RabbitMQ stops gracefully), SIGKILL after `timeoutMs`; resolves once it is gone. */
  async stop(timeoutMs = 30_000): Promise<void> {
    const pid = this.pid;
    if (pid === undefined) return;
    signal(pid, 'SIGTERM');
    const deadline = Date.now() + timeoutMs;
    while (isAlive(pid)) {
      if (Date.now() > deadline) signal(pid, 'SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    this.pid = undefined;
  }

  /** Stops it and removes its folder. */
  async remove(): Promise<void> {
    await this.stop();
    rmSync(this.folder, { recursive: true, force: true });
  }

  /** `rabbitmqctl -n <node> …args`: its output; rejects with the command's error. */
  async ctl(...args: string[]): Promise<string> {
    try {
      const { stdout } = await execute('rabbitmqctl', ['-n', this.node, ...args], { timeout: 120_000 });
      return stdout;
    } catch (error) {
      const failure = error as { stderr?: string; message: string };
      throw new Error(`rabbitmqctl -n ${this.node} ${args.join(' ')} failed: ${failure.stderr?.trim() || failure.message}`);
    }
  }

  /** The last lines of its log, for a start that failed. */
  private logTail(): string {
    const log = join(this.folder, 'log', `${this.node}.log`);
    return existsSync(log) ? readFileSync(log, 'utf8').split('\n').slice(-30).join('\n') : `(no log at ${log})`;
  }

  private environment(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      RABBITMQ_NODENAME: this.node,
      RABBITMQ_DIST_PORT: String(this.distPort),
      RABBITMQ_MNESIA_BASE: join(this.folder, 'mnesia'),
      RABBITMQ_LOG_BASE: join(this.folder, 'log'),
      RABBITMQ_CONFIG_FILE: join(this.folder, 'rabbitmq.conf'),
      RABBITMQ_ENABLED_PLUGINS_FILE: join(this.folder, 'enabled_plugins'),
      RABBITMQ_PID_FILE: join(this.folder, 'rabbitmq.pid'),
      RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '+S 1',
    };
  }
}

/**
 * Nodes of a test's own joined into one cluster: the first is started, each other one started,
 * reset and joined to it (`rabbitmqctl stop_app; reset; join_cluster; start_app`). `remove` stops
 * every node by its process id and removes its folder, also after a failed start.
 */
export class RabbitMqCluster {
  private constructor(readonly nodes: readonly RabbitMqNode[]) {}

  static async start(label: string, size: number): Promise<RabbitMqCluster> {
    const nodes: RabbitMqNode[] = [];
    for (let index = 0; index < size; index++) nodes.push(await RabbitMqNode.create(`${label}${index}`));
    const cluster = new RabbitMqCluster(nodes);
    try {
      await Promise.all(nodes.map((node) => node.startOrRetry()));
      const [seed, ...others] = nodes;
      for (const node of others) {
        await node.ctl('stop_app');
        await node.ctl('reset');
        await node.ctl('join_cluster', seed!.node);
        await node.ctl('start_app');
      }
    } catch (error) {
      await cluster.remove();
      throw error;
    }
    return cluster;
  }

  /** Every node's AMQP URL as guest, comma-separated (AMQP_URL of a service that knows the whole cluster). */
  get amqpUrl(): string {
    return this.nodes.map((node) => node.amqpUrl).join(',');
  }

  /** The node with this name. */
  node(name: string): RabbitMqNode {
    const node = this.nodes.find((each) => each.node === name);
    if (!node) throw new Error(`${name} is no node of this cluster`);
    return node;
  }

  async remove(): Promise<void> {
    await Promise.all(this.nodes.map((node) => node.remove().catch(() => undefined)));
  }
}

function chownRecursively(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) chownRecursively(join(path, entry), uid, gid);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

function isAlive(pid: number): boolean {
  try {
    // A zombie stays in /proc until reaped; it runs no more.
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}
