// What `npm start` (tools/start.mjs) and `npm run sandbox` (tools/sandbox.mjs) do before their
// launcher runs: check that PostgreSQL, Redis and RabbitMQ answer (tools/preflight.mjs; one line per
// missing piece and exit 1 otherwise), build the services and the stack launcher (unless
// SKIP_BUILD), and find the launcher's bundle in dist/tools/stack.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkInfrastructure } from './preflight.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The launcher's own lines: `[start]    …`, `[sandbox]  …`, aligned with the services' prefixes. */
export function sayAs(label) {
  const prefix = `[${label}]`;
  const painted = process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${prefix}\x1b[0m` : prefix;
  return (text) => console.log(`${painted}${' '.repeat(Math.max(11 - prefix.length, 1))}${text}`);
}

/**
 * Unset NODE_ENV would mean production (secrets required): a local stack is development unless the
 * caller chose. Blank (`NODE_ENV= npm …`) is unset, as for the services (libs/config, nodeEnv).
 */
export function developmentByDefault() {
  if (!process.env.NODE_ENV?.trim()) process.env.NODE_ENV = 'development';
}

/** Checks, builds and returns the URL of `dist/tools/stack/<bundle>` to import; exits 1 with its reason when anything is missing. */
export async function prepareStack(say, bundle) {
  const env = process.env;
  // Before anything is built or started: each of PostgreSQL, Redis and RabbitMQ that does not answer is one line.
  const problems = await checkInfrastructure(env);
  if (problems.length > 0) {
    for (const problem of problems) say(problem);
    say('nothing was started');
    process.exit(1);
  }
  if (!env.SKIP_BUILD) {
    say('building the services (nx run-many -t build)...');
    const result = spawnSync('nx', ['run-many', '-t', 'build', '--outputStyle=static'], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...env, NX_NO_CLOUD: 'true', NX_DAEMON: 'false' },
    });
    if (result.status !== 0) {
      say('the build failed; nothing was started');
      process.exit(1);
    }
  }
  const launcher = join(root, 'dist', 'tools', 'stack', bundle);
  if (!existsSync(launcher)) {
    say(`missing ${launcher}: run without SKIP_BUILD once`);
    process.exit(1);
  }
  return pathToFileURL(launcher).href;
}
