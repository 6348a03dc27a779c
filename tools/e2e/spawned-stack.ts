// The stack as a user runs it: `node tools/start.mjs` (what `npm start` runs) in a child process,
// with the admin command line (`tools/admin.mjs`, what `npm run admin` runs) as further processes.
// Everything the services log is collected, to check what reaches the logs.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology, testEnvironment, uniqueName, waitFor, freePort } from '@bedrequest/testing';
import { stackEnvironment } from './stack-environment';

const root = join(__dirname, '..', '..');

export interface SpawnedStack {
  readonly gatewayUrl: string;
  readonly env: NodeJS.ProcessEnv;
  /** Everything written so far by the services and the start script. */
  output(): string;
  /** Runs `npm run admin -- ...args`; rejects with its one-line error on a non-zero exit. */
  admin(...args: string[]): Promise<string>;
  /** Ctrl-C: resolves with the start script's exit code. */
  stop(): Promise<number | null>;
}

export async function spawnStack(extraEnv: Record<string, string> = {}): Promise<SpawnedStack> {
  const run = testEnvironment();
  const namespace = uniqueName('stack');
  const [gateway, gatewayInternal, auth, intake, routing, notifier] = await Promise.all(Array.from({ length: 6 }, freePort));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(gateway),
    INTERNAL_PORT: String(gatewayInternal),
    AUTH_PORT: String(auth),
    INTAKE_PORT: String(intake),
    ROUTING_PORT: String(routing),
    NOTIFIER_PORT: String(notifier),
    ROUTING_URL: `http://127.0.0.1:${routing}`,
    ...stackEnvironment(namespace),
    LOG_LEVEL: 'info',
    NO_COLOR: '1',
    ...extraEnv,
  };
  const child: ChildProcess = spawn(process.execPath, [join(root, 'tools', 'start.mjs')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGINT');
    const code = await exited;
    await deleteBrokerTopology(run.amqpUrl, declareTopology(namespace)).catch(() => undefined);
    return code;
  };
  try {
    await waitFor(() => output.includes('is ready at') || child.exitCode !== null, { timeoutMs: 120_000, what: 'the stack to start' });
    if (child.exitCode !== null) throw new Error(`the stack did not start:\n${output}`);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
  const execute = promisify(execFile);
  return {
    gatewayUrl: `http://127.0.0.1:${gateway}`,
    env,
    output: () => output,
    admin: async (...args: string[]) => {
      try {
        const { stdout } = await execute(process.execPath, [join(root, 'tools', 'admin.mjs'), ...args], { cwd: root, env });
        return stdout;
      } catch (error) {
        const failure = error as { stderr?: string; code?: number };
        throw new Error(`npm run admin -- ${args.slice(0, 2).join(' ')} exited ${failure.code}: ${failure.stderr?.trim()}`);
      }
    },
    stop,
  };
}
