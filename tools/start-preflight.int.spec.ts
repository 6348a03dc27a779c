import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@bedrequest/testing';

const root = join(__dirname, '..');

/** `npm start` (tools/start.mjs under Node 24, as `npm start` runs it) with `env`: its exit code and output. */
function npmStart(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [join(root, 'tools', 'start.mjs')], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  // Should it build and start after all, it is stopped like Ctrl-C would stop it.
  const guard = setTimeout(() => child.kill('SIGINT'), 30_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, output });
    }),
  );
}

describe('npm start without PostgreSQL, Redis or RabbitMQ', () => {
  it('says in one line each which one is not reachable where and how to start it, and exits 1 before building anything', async () => {
    // Ports that were free a moment ago: nothing listens there. The real services stay untouched.
    const [database, redis, broker] = await Promise.all([freePort(), freePort(), freePort()]);
    const result = await npmStart({
      DATABASE_URL: `postgresql://postgres:db-secret@127.0.0.1:${database}/bedrequest`,
      REDIS_URL: `redis://127.0.0.1:${redis}`,
      AMQP_URL: `amqp://guest:mq-secret@127.0.0.1:${broker}`,
    });

    // Nothing built: the whole output is the check's lines (a build would say "building the services").
    expect(result.code).toBe(1);
    expect(result.output.trimEnd().split('\n')).toEqual([
      `[start]    PostgreSQL at 127.0.0.1:${database} is not reachable (connect ECONNREFUSED 127.0.0.1:${database}): start it (\`docker compose up -d postgres\`) or point DATABASE_URL at a running one`,
      `[start]    Redis at 127.0.0.1:${redis} is not reachable (connect ECONNREFUSED 127.0.0.1:${redis}): start it (\`docker compose up -d redis\`) or point REDIS_URL at a running one`,
      `[start]    RabbitMQ at 127.0.0.1:${broker} is not reachable (connect ECONNREFUSED 127.0.0.1:${broker}): start it (\`docker compose up -d rabbitmq\`) or point AMQP_URL at a running one`,
      '[start]    nothing was started',
    ]);
    expect(result.output).not.toContain('secret');
  }, 40_000);

  it('names only the one that is missing', async () => {
    const broker = await freePort();
    const result = await npmStart({ AMQP_URL: `amqp://guest:guest@127.0.0.1:${broker}` });
    expect(result.code).toBe(1);
    expect(result.output.trimEnd().split('\n')).toEqual([
      `[start]    RabbitMQ at 127.0.0.1:${broker} is not reachable (connect ECONNREFUSED 127.0.0.1:${broker}): start it (\`docker compose up -d rabbitmq\`) or point AMQP_URL at a running one`,
      '[start]    nothing was started',
    ]);
  }, 40_000);
});

describe('npm start with PostgreSQL, Redis and RabbitMQ up', () => {
  // npm-start.int.spec.ts starts the stack built beforehand (SKIP_BUILD): a real build in the middle
  // of a test run would copy the cached outputs again under the other test files. Here the `nx` on the
  // PATH records how it was called and fails, which shows that npm start builds, how, and that a
  // failed build starts nothing.
  it('builds with `nx run-many -t build` before it starts anything, and starts nothing when the build fails', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'start-build-'));
    const calls = join(bin, 'calls');
    writeFileSync(join(bin, 'nx'), `#!/bin/sh\necho "$@ NX_DAEMON=$NX_DAEMON" >> '${calls}'\nexit 3\n`, { mode: 0o755 });
    try {
      const result = await npmStart({ PATH: `${bin}:${process.env.PATH}` });
      expect(result.code).toBe(1);
      expect(result.output.trimEnd().split('\n')).toEqual([
        '[start]    building the services (nx run-many -t build)...',
        '[start]    the build failed; nothing was started',
      ]);
      expect(readFileSync(calls, 'utf8')).toBe('run-many -t build --outputStyle=static NX_DAEMON=false\n');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }, 40_000);
});
