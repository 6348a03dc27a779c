// Each service process (dist/apps/<service>/main.cjs, as `npm start` and the Docker image run it)
// started with nothing but the variables below: no NODE_ENV, so production, and none of its secrets,
// keys or connection URLs. It must refuse to start with one line per missing variable, naming it,
// before it opens anything.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { SERVICES, buildServices, root, type ServiceName } from '@bedrequest/stack';

/** What production must be given, per service, in the order the service reports it (its config.ts). */
const REQUIRED: Record<ServiceName, readonly string[]> = {
  auth: ['REDIS_URL', 'DATABASE_URL', 'AUTH_SIGNING_KEY', 'SERVICE_CLIENT_SECRET', 'API_PUBLIC_URL'],
  routing: ['AMQP_URL', 'DATABASE_URL'],
  intake: ['AMQP_URL', 'DATABASE_URL', 'DATA_KEK', 'SERVICE_CLIENT_SECRET'],
  notifier: ['AMQP_URL', 'DATABASE_URL', 'DATA_KEK', 'SERVICE_CLIENT_SECRET'],
  gateway: ['AMQP_URL', 'API_PUBLIC_URL', 'SERVICE_CLIENT_SECRET', 'REDIS_URL'],
  web: ['REDIS_URL', 'WEB_CSRF_SECRET'],
};

/**
 * The service's bundle with exactly `env` as its environment (the stack launcher always adds this
 * process's environment, NODE_ENV=test included, and a client secret, so it cannot leave them out).
 */
function runService(service: ServiceName, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(root, 'dist', 'apps', service, 'main.cjs')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // Should it start after all, it is stopped, and the assertions below say why.
  const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe('a service started without NODE_ENV and without its secrets', () => {
  beforeAll(() => buildServices(), 180_000);

  it.each(SERVICES)(
    '%s exits 1 and names each missing variable on a line of its own',
    async (service) => {
      const { code, stdout, stderr } = await runService(service, { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info' });

      expect(code).toBe(1);
      expect(stdout).toBe('');
      const lines = stderr.trimEnd().split('\n');
      expect(lines[0]).toBe(`${service}: invalid configuration:`);
      expect(lines.slice(1).map((line) => /^\S+: {3}([A-Z_]+): required( in production)?: \S/.exec(line)?.[1] ?? line)).toEqual(REQUIRED[service]);
    },
    30_000,
  );

  it('asks in development only for the service client secret, the one variable without a local default', async () => {
    const { code, stderr } = await runService('gateway', { PATH: process.env.PATH ?? '', NODE_ENV: 'development' });
    expect(code).toBe(1);
    expect(stderr.trimEnd().split('\n')).toEqual(['gateway: invalid configuration:', expect.stringMatching(/^gateway: {3}SERVICE_CLIENT_SECRET: required: /)]);
  }, 30_000);
});
