// `npm test`: jest.config.cjs's projects in two jest runs side by side. The `browser` project (the
// clinic inbox's and the hospital workspace's pages in Chromium, tools/e2e/inbox and
// tools/e2e/workspace) runs one file at a time in a run of its own; `unit` and `integration` run in
// the other with two workers. Most of an integration file's time is spent waiting (a stack
// starting, a webhook's retry, a browser's page), so a third file at a time shortens the whole run;
// never two browsers at once, which is where a page's own time bounds would suffer. Each run has its
// own database, broker namespace and Redis prefix (tools/jest/global-setup.cjs).
//
// Arguments go to both runs (`npm test -- <path pattern>`); a run none of whose files match passes.
// The main run's output comes as it happens, the browser run's once it has finished; the exit status
// is the first failed run's, else 0.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const jest = join(root, 'node_modules', 'jest', 'bin', 'jest.js');
const args = process.argv.slice(2);
const narrowed = args.length > 0 ? ['--passWithNoTests'] : [];
// One mark of a done build for both runs (tools/stack buildServices): the second run to need the
// services' bundles finds them built, instead of building again while the first starts services from them.
const buildMark = process.env.TEST_BUILD_MARK ?? `lanes-${randomBytes(4).toString('hex')}`;
const env = { ...process.env, TEST_BUILD_MARK: buildMark };

const folder = mkdtempSync(join(tmpdir(), 'bedrequest-lanes-'));
const browserLog = join(folder, 'browser.log');

function run(projects, workers, output) {
  const child = spawn(
    process.execPath,
    [jest, '--selectProjects', ...projects, '--config', 'jest.config.cjs', `--maxWorkers=${workers}`, ...narrowed, ...args],
    {
      cwd: root,
      env,
      stdio: output ? ['ignore', 'pipe', 'pipe'] : ['ignore', 'inherit', 'inherit'],
    },
  );
  if (output) {
    const log = createWriteStream(output);
    child.stdout.pipe(log);
    child.stderr.pipe(log);
  }
  return { child, done: new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)))) };
}

const main = run(['unit', 'integration'], 2, undefined);
const browser = run(['browser'], 1, browserLog);
// Ctrl-C reaches both runs through the terminal's process group; a TERM sent to this process alone is passed on.
for (const signal of ['SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    main.child.kill(signal);
    browser.child.kill(signal);
  });
}

const [mainStatus, browserStatus] = await Promise.all([main.done, browser.done]);
process.stdout.write(`\n── the browser project (tools/e2e/inbox, tools/e2e/workspace), run beside the others ──\n`);
process.stdout.write(readFileSync(browserLog, 'utf8'));
rmSync(folder, { recursive: true, force: true });
rmSync(join(root, 'dist', `.built-${buildMark}`), { force: true });
process.exitCode = mainStatus || browserStatus;
