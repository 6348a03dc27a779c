// The services as processes of their own, from dist, as `npm start` and the Docker image run them:
// for the fault suite (kill -9, restarts on the same port), the benchmark (CPU and memory per
// process), `npm start` itself, and the tests that need two processes of one service.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { ServiceName } from './services';

/** The repository root: the nearest directory above this file, or above the bundle it was bundled into, that holds nx.json. */
export const root = workspaceRootAbove(__dirname);

function workspaceRootAbove(directory: string): string {
  for (let current = directory; ; current = dirname(current)) {
    if (existsSync(join(current, 'nx.json'))) return current;
    if (dirname(current) === current) throw new Error(`no workspace (nx.json) above ${directory}`);
  }
}

/** The V8 options every service process runs with, as `npm start` and the Docker image run them. */
const SERVICE_NODE_OPTIONS: readonly string[] = (
  JSON.parse(readFileSync(join(root, 'tools', 'service-node-options.json'), 'utf8')) as { nodeOptions: string[] }
).nodeOptions;

/**
 * `nx run-many -t build` (cached by Nx: a second call without changes takes about a second). The
 * test files of one run (TEST_RUN_ID, tools/jest/global-setup.cjs) run in parallel workers and many
 * need the build: two builds at once delete each other's output (`deleteOutputPath`), so within a
 * run the first caller builds under a lock (a directory, created atomically) and the others wait
 * for it and find the build done.
 */
export function buildServices(): void {
  const runId = process.env.TEST_RUN_ID;
  if (!runId) return build();
  const done = join(root, 'dist', `.built-${runId}`);
  const lock = join(root, 'tmp', 'build.lock');
  mkdirSync(dirname(lock), { recursive: true });
  for (;;) {
    if (existsSync(done)) return;
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // A lock left by a killed run is taken over after ten minutes, longer than any build here.
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 250);
    }
  }
  try {
    if (existsSync(done)) return;
    build();
    writeFileSync(done, '');
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function build(): void {
  const result = spawnSync('nx', ['run-many', '-t', 'build', '--outputStyle=static'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' },
  });
  if (result.status !== 0) throw new Error('the build (nx run-many -t build) failed');
}

/** What becomes of a process's output: thrown away, kept for `output()`, or handed on line by line. */
export type OutputHandling = 'discard' | 'capture' | ((instance: string, line: string) => void);

/** Captured output kept per process: the newest part. */
const OUTPUT_LIMIT = 4 * 2 ** 20;

export interface ServiceProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** What it wrote to stdout and stderr, when captured. */
  output(): string;
  isRunning(): boolean;
  /** Graceful stop: SIGTERM, SIGKILL after 20 s; resolves once the process is gone. */
  stop(): Promise<void>;
}

const STOP_TIMEOUT_MS = 20_000;

/** Spawns `entry` (default: the service's bundle in dist) with `env` as its whole environment. */
export function spawnService(
  instance: string,
  service: ServiceName,
  options: { env: Record<string, string>; entry?: string; nodeArgs?: readonly string[]; output: OutputHandling; ownProcessGroup?: boolean },
): ServiceProcess {
  const entry = options.entry ?? join(root, 'dist', 'apps', service, 'main.cjs');
  const child = spawn(process.execPath, ['--enable-source-maps', ...SERVICE_NODE_OPTIONS, ...(options.nodeArgs ?? []), entry], {
    cwd: root,
    env: options.env,
    // In a process group of its own (`npm start`), a Ctrl-C at the terminal reaches only the launcher, which stops the services in order.
    detached: options.ownProcessGroup ?? false,
    stdio: ['ignore', options.output === 'discard' ? 'ignore' : 'pipe', options.output === 'discard' ? 'inherit' : 'pipe'],
  });
  let output = '';
  const handle = options.output;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    if (typeof handle === 'function') {
      createInterface({ input: stream }).on('line', (line) => handle(instance, line));
    } else {
      stream.on('data', (chunk: Buffer) => {
        output += chunk.toString('utf8');
        if (output.length > OUTPUT_LIMIT) output = output.slice(-OUTPUT_LIMIT / 2);
      });
    }
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const isRunning = () => child.exitCode === null && child.signalCode === null;
  const stop = async () => {
    if (!isRunning()) return;
    child.kill('SIGTERM');
    const force = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(force);
  };
  return { child, exited, output: () => output, isRunning, stop };
}

/**
 * Resolves once `probeUrl`/health/ready answers 200; rejects when the process ends first or the time
 * is up (and then kills it: a service that never became ready is of no use to anyone).
 */
export async function untilReady(name: string, probeUrl: string, timeoutMs: number, process?: ServiceProcess): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (process && !process.isRunning()) throw new Error(`${name} exited during start-up${lastLinesOf(process)}`);
    const ready = await fetch(`${probeUrl}/health/ready`, { signal: AbortSignal.timeout(2_000) }).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) {
      process?.child.kill('SIGKILL');
      throw new Error(`${name} did not become ready within ${timeoutMs / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The last lines a process wrote, when they were captured: why it ended. */
function lastLinesOf(process: ServiceProcess): string {
  const lines = process.output().trimEnd().split('\n').slice(-5).join('\n');
  return lines ? `:\n${lines}` : '';
}

/** `npm run admin -- …args` (tools/admin.mjs) as its own process; the exit code and what it wrote. */
export async function adminProcess(argv: readonly string[], env: Record<string, string>): Promise<{ code: number; out: string[]; err: string[] }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [join(root, 'tools', 'admin.mjs'), ...argv], { cwd: root, env });
    return { code: 0, out: lines(stdout), err: lines(stderr) };
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string; code?: number };
    return { code: typeof failure.code === 'number' ? failure.code : 1, out: lines(failure.stdout ?? ''), err: lines(failure.stderr ?? '') };
  }
}

const lines = (text: string) => text.split('\n').filter((line) => line.length > 0);
