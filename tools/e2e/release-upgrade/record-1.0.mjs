// Records what release 1.0's services write, for the upgrade test (tools/e2e/release-1.0-upgrade.int.spec.ts;
// the recording and its files: tools/e2e/fixtures/release-1.0/README.md). Run by hand, from the
// repository root, with PostgreSQL, Redis and RabbitMQ running as for the integration tests:
//
//   node tools/node24.cjs node tools/e2e/release-upgrade/record-1.0.mjs
//
// It checks release 1.0 (commit a5c1230) out into a git worktree in a temporary folder, installs it
// (this checkout's node_modules, linked, while package-lock.json is the same; `npm ci` otherwise),
// generates its Prisma clients, and runs record-1.0.driver.ts there as a test of that release: 1.0's
// stack in-process on schemas, a Redis key prefix and a broker namespace of its own, driven through
// its gateway and admin command line. The files it writes replace those in the fixture folder
// (another with RELEASE_FIXTURE_OUT). The worktree is removed afterwards, whatever happened.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const RELEASE_COMMIT = 'a5c1230';
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..', '..', '..');
const out = resolve(process.env.RELEASE_FIXTURE_OUT ?? join(root, 'tools', 'e2e', 'fixtures', 'release-1.0'));

/** Runs a command to its end, its output on this terminal; throws with the command if it fails. */
function step(command, args, options = {}) {
  console.log(`[record-1.0] ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${result.status ?? result.signal}`);
}

function git(...args) {
  const result = spawnSync('git', ['-C', root, ...args], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim()}`);
  return result.stdout.trim();
}

if (Number(process.versions.node.split('.')[0]) < 24) {
  console.error('[record-1.0] needs Node 24: run it as node tools/node24.cjs node tools/e2e/release-upgrade/record-1.0.mjs');
  process.exit(1);
}
const commit = git('rev-parse', '--verify', `${RELEASE_COMMIT}^{commit}`);
const scratch = mkdtempSync(join(tmpdir(), 'bedrequest-release-1.0-'));
const tree = join(scratch, 'tree');
try {
  git('worktree', 'add', '--detach', tree, commit);
  const env = { ...process.env, PATH: [join(tree, 'node_modules', '.bin'), process.env.PATH].join(':') };
  // The same lock file installs the same packages: this checkout's serve, without a second install.
  const sameLockfile = spawnSync('git', ['-C', root, 'diff', '--quiet', commit, '--', 'package-lock.json']).status === 0;
  if (sameLockfile && existsSync(join(root, 'node_modules'))) symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'), 'dir');
  else step('npm', ['ci', '--no-audit', '--no-fund'], { cwd: tree, env });
  for (const service of ['auth', 'intake', 'routing', 'notifier']) step(process.execPath, ['tools/prisma-generate.mjs', `apps/${service}`], { cwd: tree, env });

  const target = join(tree, 'tools', 'e2e', 'release-upgrade');
  mkdirSync(target, { recursive: true });
  copyFileSync(join(here, 'recording.ts'), join(target, 'recording.ts'));
  copyFileSync(join(here, 'record-1.0.driver.ts'), join(target, 'record-1.0.int.spec.ts'));
  step('jest', ['--selectProjects', 'integration', '--config', 'jest.config.cjs', '--runTestsByPath', 'tools/e2e/release-upgrade/record-1.0.int.spec.ts'], {
    cwd: tree,
    env: { ...env, RELEASE_FIXTURE_OUT: out, RELEASE_COMMIT: commit },
  });
  console.log(`[record-1.0] release ${commit} recorded into ${out}`);
} finally {
  // The link goes first, so that nothing removing the worktree can reach into this checkout's packages.
  const link = join(tree, 'node_modules');
  if (lstatSync(link, { throwIfNoEntry: false })?.isSymbolicLink()) unlinkSync(link);
  spawnSync('git', ['-C', root, 'worktree', 'remove', '--force', tree], { stdio: 'inherit' });
  spawnSync('git', ['-C', root, 'worktree', 'prune'], { stdio: 'inherit' });
  rmSync(scratch, { recursive: true, force: true });
}
