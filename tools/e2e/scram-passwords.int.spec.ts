import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { freePort } from '@bedrequest/testing';
import { launchStack, type Stack } from '@bedrequest/stack';

/**
 * Passwords for real: the local PostgreSQL trusts everyone, so this test starts a throwaway cluster
 * with `initdb --auth=scram-sha-256` (Debian's binaries) on a free port, provisions the stack there
 * with the cluster's administrator, and runs every service with its own role and password.
 */
const bin = (() => {
  const root = '/usr/lib/postgresql';
  const version = existsSync(root) ? readdirSync(root).sort().pop() : undefined;
  return version ? join(root, version, 'bin') : undefined;
})();
const ADMIN_PASSWORD = 'scram-admin-secret';

/** Runs a PostgreSQL binary as the `postgres` user when this is root (initdb refuses root). */
function runAsPostgres(command: string, args: string[]): string {
  const asRoot = process.getuid?.() === 0;
  return execFileSync(asRoot ? 'runuser' : command, asRoot ? ['-u', 'postgres', '--', command, ...args] : args, { encoding: 'utf8', stdio: 'pipe' });
}

/** `describe`, or `describe.skip` with the reason printed once, where PostgreSQL's server binaries are missing. */
function describeWithPostgresBinaries(name: string, body: () => void): void {
  if (bin && existsSync(join(bin, 'initdb'))) {
    describe(name, body);
    return;
  }
  console.warn(
    `skipping "${name}": PostgreSQL's server binaries (initdb, pg_ctl) are missing under /usr/lib/postgresql/<version>/bin (apt-get install -y postgresql)`,
  );
  // eslint-disable-next-line jest/no-disabled-tests -- skipped on purpose, and said so above: no PostgreSQL binaries on this machine
  describe.skip(name, body);
}

describeWithPostgresBinaries('a PostgreSQL that checks passwords (SCRAM)', () => {
  let folder: string;
  let dataDir: string;
  let port: number;
  let stack: Stack | undefined;

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'scram-'));
    dataDir = join(folder, 'data');
    const passwordFile = join(folder, 'password');
    writeFileSync(passwordFile, ADMIN_PASSWORD);
    if (process.getuid?.() === 0) {
      const { uid, gid } = {
        uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' })),
        gid: Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' })),
      };
      chownSync(folder, uid, gid);
      chownSync(passwordFile, uid, gid);
    }
    chmodSync(folder, 0o700);
    port = await freePort();
    runAsPostgres(join(bin!, 'initdb'), ['--auth=scram-sha-256', '--username=admin', `--pwfile=${passwordFile}`, '-D', dataDir]);
    runAsPostgres(join(bin!, 'pg_ctl'), [
      '-D',
      dataDir,
      '-l',
      join(folder, 'log'),
      '-w',
      '-o',
      `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1`,
      'start',
    ]);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (bin && dataDir) runAsPostgres(join(bin, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', 'stop']);
    if (folder) rmSync(folder, { recursive: true, force: true });
  }, 120_000);

  it('refuses a wrong password, and runs every service with its own role and password', async () => {
    const adminUrl = `postgresql://admin:${ADMIN_PASSWORD}@127.0.0.1:${port}/bedrequest`;
    await expect(connectAs(`postgresql://admin:wrong@127.0.0.1:${port}/postgres`)).rejects.toThrow(/password authentication failed/);

    stack = await launchStack({ mode: 'in-process', isolate: 'scram', env: { DATABASE_URL: adminUrl, LOG_LEVEL: 'silent', DATABASE_POOL_SIZE: '2' } });
    const intake = stack.plan!.database.find((principal) => principal.service === 'intake')!;
    await expect(connectAs(`postgresql://${intake.app}:not-its-password@127.0.0.1:${port}/bedrequest`)).rejects.toThrow(/password authentication failed/);

    // The services logged in with their passwords: each runtime role has a session on the cluster.
    const admin = await connectAs(adminUrl);
    const { rows } = await admin.query<{ usename: string }>(`SELECT DISTINCT usename FROM pg_stat_activity WHERE usename LIKE '%\\_app' ORDER BY 1`);
    await admin.end();
    expect(rows.map((row) => row.usename)).toEqual(
      ['auth', 'intake', 'notifier', 'routing'].map((service) => stack!.plan!.database.find((principal) => principal.service === service)!.app).sort(),
    );
    // And the stack works on it: a clinic registered through routing, a login through auth.
    await stack.admin('clinic', 'upsert', '--ik', '260000001', '--name', 'Klinik', '--departments', '2300');
    await stack.admin('user', 'create', '--role', 'clinic', '--username', 'scram-clinic', '--password', 'scram-clinic-pw', '--ik', '260000001');
    expect((await stack.login('scram-clinic', 'scram-clinic-pw')).accessToken).toMatch(/^ey/);
  }, 180_000);
});

async function connectAs(url: string): Promise<Client> {
  const client = new Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}
