import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildServices, root } from '@bedrequest/stack';
import { testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { freeServicePorts } from './service-ports';
import { guideAddresses, guideCommands, guideScript, readGuide } from './integration-guide/guide-script';

/**
 * docs/integration.md as a new integrator follows it: `npm run sandbox` (tools/sandbox.mjs, as the
 * guide starts it, on ports and in a namespace of the test's own), then every `sh` block of the
 * guide, extracted from the document and run in order in one bash, in a directory that holds what
 * the guide reads (docs/ and the sandbox's tmp/sandbox). The guide ends with the selected clinic's
 * Task in progress; the test checks that with its own reads, so a guide that drifts from the
 * service fails here.
 */
describe('docs/integration.md, run as written against the sandbox', () => {
  const run = testEnvironment();
  const namespace = uniqueName('guide').replace(/[^a-z0-9_]/g, '_');
  const work = mkdtempSync(join(tmpdir(), 'guide-'));
  const sandboxDir = join(work, 'tmp', 'sandbox');
  let sandbox: ChildProcess | undefined;
  let sandboxOutput = '';
  let env: NodeJS.ProcessEnv = {};

  afterAll(async () => {
    if (sandbox && sandbox.exitCode === null) {
      const exited = new Promise((resolve) => sandbox!.once('exit', resolve));
      sandbox.kill('SIGTERM');
      const force = setTimeout(() => sandbox!.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(force);
    }
    // The sandbox keeps its namespace between runs; the test's goes with `--reset`.
    if (sandbox) await runToEnd(spawn(process.execPath, [join(root, 'tools', 'sandbox.mjs'), '--reset'], { cwd: root, env, stdio: 'ignore' }));
    rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('reaches a selected clinic whose Task is in progress', async () => {
    const blocks = guideCommands(readGuide());
    const written = guideAddresses(blocks);
    // The guide's addresses are the sandbox's defaults: npm start's gateway (8080) and web (8085) ports plus 100.
    expect(written).toEqual({ api: 'http://127.0.0.1:8180', web: 'http://127.0.0.1:8185' });

    buildServices();
    const ports = await freeServicePorts();
    env = {
      ...process.env,
      ...ports,
      SANDBOX_NAMESPACE: namespace,
      SANDBOX_DIR: sandboxDir,
      REDIS_KEY_PREFIX: run.redisKeyPrefix,
      SKIP_BUILD: '1',
      NO_COLOR: '1',
      LOG_LEVEL: 'warn',
    };
    delete env.AMQP_NAMESPACE;
    sandbox = spawn(process.execPath, [join(root, 'tools', 'sandbox.mjs')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    sandbox.stdout!.on('data', (chunk: Buffer) => (sandboxOutput += chunk.toString()));
    sandbox.stderr!.on('data', (chunk: Buffer) => (sandboxOutput += chunk.toString()));
    await waitFor(() => sandboxOutput.includes('Ctrl-C stops the sandbox') || sandbox!.exitCode !== null, {
      timeoutMs: 180_000,
      what: 'npm run sandbox to say it is ready',
    });
    if (sandbox.exitCode !== null) throw new Error(`npm run sandbox exited ${sandbox.exitCode}:\n${sandboxOutput}`);

    const api = `http://127.0.0.1:${ports.PORT}`;
    const web = `http://127.0.0.1:${ports.WEB_PORT}`;
    // What the guide reads besides the service: the examples in docs/, the sandbox's key files in tmp/sandbox.
    symlinkSync(join(root, 'docs'), join(work, 'docs'));
    mkdirSync(join(work, 'tmp'), { recursive: true });
    const script = join(work, 'guide.sh');
    writeFileSync(script, guideScript(blocks, { api, web }, ['REQUEST', 'TASK_ID']));
    const guide = spawn('bash', [script], { cwd: work, env: { PATH: process.env.PATH, HOME: work, LANG: 'C.UTF-8' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    guide.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    guide.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const status = await runToEnd(guide);
    if (status !== 0) throw new Error(`the guide's commands stopped with exit status ${status}:\n${output}\n--- the sandbox:\n${sandboxOutput.slice(-4000)}`);

    // The placement, read by the test itself: the selected clinic's Task in progress, the other's cancelled.
    const login = await fetch(`${api}/api/v1/token/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'sandbox-referrer', password: 'sandbox-referrer-password' }),
    });
    expect(login.headers.get('bedrequest-environment')).toBe('sandbox');
    const { accessToken } = (await login.json()) as { accessToken: string };
    const request = /^GUIDE REQUEST=(\S+)$/m.exec(output)?.[1];
    expect(request).toBeDefined();
    const search = await fetch(`${api}/api/v2/fhir/Task?based-on=${encodeURIComponent(request!)}`, { headers: { authorization: `Bearer ${accessToken}` } });
    const tasks = ((await search.json()) as { entry?: { resource: { owner: { identifier: { value: string } }; status: string } }[] }).entry ?? [];
    const byClinic = Object.fromEntries(tasks.map(({ resource }) => [resource.owner.identifier.value, resource.status]));
    expect(byClinic).toEqual({ '510000001': 'in-progress', '510000002': 'cancelled' });
  }, 420_000);
});

function runToEnd(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}
