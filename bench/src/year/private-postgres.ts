// A PostgreSQL 15 of the bench's own, with production's vacuum settings: the machine's cluster runs
// with `autovacuum = off` (a file in its conf.d), which no production cluster does, and a year of
// data measured there would measure a database nobody runs. Its data folder is kept between runs
// (the year's template database lives in it); a run killed before it stopped the server leaves a
// state file naming its process, and the next start stops what it finds.
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { Client } from 'pg';
import { root } from './workspace-root';

/** Where the bench keeps its PostgreSQL (and so the year's template) between runs: the workspace's git-ignored tmp/. */
export const BENCH_POSTGRES_DIR = join(root, 'tmp', 'bench-postgres');

const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';
const STATE_FILE = 'owner.json';

export interface PrivatePostgres {
  /** `postgresql://postgres@127.0.0.1:<port>/postgres`: the administrator's connection. */
  adminUrl: string;
  port: number;
  /** Where its data folder and log live. */
  dir: string;
  /** What `SHOW autovacuum` answered: `on` here. */
  autovacuum: string;
  /** One line for the report: which PostgreSQL the run used. */
  description: string;
  stop(): Promise<void>;
}

/** Its start time in clock ticks since boot (field 22 of /proc/<pid>/stat): a pid used again by another process has another. */
function startTicks(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** A command as the cluster's owner: `postgres` when this process is root (initdb refuses root), else this user. */
function asOwner(file: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
}

function run(file: string, args: string[]): string {
  const [command, commandArgs] = asOwner(file, args);
  return execFileSync(command, commandArgs, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const pgCtl = (data: string, log: string, ...args: string[]) => run(join(POSTGRES_BIN, 'pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '120', ...args]);

/** Stops a server a killed run left running in `dir` (its owner process is gone); refuses while a live run owns it. */
export function reapPrivatePostgres(dir: string): void {
  const data = join(dir, 'data');
  const stateFile = join(dir, STATE_FILE);
  if (existsSync(stateFile)) {
    const owner = JSON.parse(readFileSync(stateFile, 'utf8')) as { pid: number; startTicks?: string };
    if (owner.pid !== process.pid && owner.startTicks !== undefined && startTicks(owner.pid) === owner.startTicks) {
      throw new Error(`the bench's PostgreSQL in ${dir} is in use by process ${owner.pid}; wait for it or stop it`);
    }
  }
  if (existsSync(join(data, 'postmaster.pid'))) {
    try {
      pgCtl(data, join(dir, 'postgres.log'), '-m', 'fast', 'stop');
      console.warn(`[bench] stopped the PostgreSQL a killed run left in ${dir}`);
    } catch {
      // Not running (a stale pid file): the next start cleans it up itself.
    }
  }
  rmSync(stateFile, { force: true });
}

/**
 * Starts the bench's own PostgreSQL 15 from `dir` (made with initdb on first use; `fresh` removes
 * a kept one first), on a free port of loopback, with autovacuum on and PostgreSQL's default
 * autovacuum parameters: per-table settings come with the services' migrations, as in production.
 */
export async function startPrivatePostgres(options: { dir: string; fresh?: boolean }): Promise<PrivatePostgres> {
  const { dir } = options;
  const data = join(dir, 'data');
  const log = join(dir, 'postgres.log');
  mkdirSync(dir, { recursive: true });
  reapPrivatePostgres(dir);
  if (options.fresh) rmSync(data, { recursive: true, force: true });
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  writeFileSync(join(dir, STATE_FILE), JSON.stringify({ pid: process.pid, startTicks: startTicks(process.pid) }));
  if (!existsSync(join(data, 'PG_VERSION'))) {
    run(join(POSTGRES_BIN, 'initdb'), ['-D', data, '--auth=trust', '--username=postgres', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
    // What differs from initdb's defaults, which are the machine's cluster's too (shared_buffers and
    // the rest): loopback only, its own socket folder, autovacuum said out loud with every
    // autovacuum parameter left at its default, and WAL for a database of tens of GiB (with 1 GB,
    // writing the year checkpointed every 8-11 s and PostgreSQL said so in its log).
    const settings = ["listen_addresses = '127.0.0.1'", `unix_socket_directories = '${dir}'`, 'max_connections = 200', 'autovacuum = on', 'max_wal_size = 8GB'];
    appendFileSync(join(data, 'postgresql.conf'), `\n${settings.join('\n')}\n`);
  }
  const port = await freePort();
  pgCtl(data, log, '-o', `-p ${port}`, 'start');
  const adminUrl = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  let autovacuum: string;
  try {
    autovacuum = await showAutovacuum(adminUrl);
  } catch (error) {
    pgCtl(data, log, '-m', 'fast', 'stop');
    throw error;
  }
  return {
    adminUrl,
    port,
    dir,
    autovacuum,
    description: `private PostgreSQL 15 on port ${port}, autovacuum ${autovacuum}`,
    stop: async () => {
      pgCtl(data, log, '-m', 'fast', 'stop');
      rmSync(join(dir, STATE_FILE), { force: true });
    },
  };
}

/** `SHOW autovacuum` of the server of `url`. */
export async function showAutovacuum(url: string): Promise<string> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ autovacuum: string }>('SHOW autovacuum');
    return rows[0]!.autovacuum;
  } finally {
    await client.end();
  }
}

/** The line for a PostgreSQL the bench did not start (the machine's, or DATABASE_URL's). */
export async function describeServer(url: string): Promise<string> {
  const parsed = new URL(url);
  return `the machine's PostgreSQL on port ${parsed.port || 5432}, autovacuum ${await showAutovacuum(url)}`;
}
