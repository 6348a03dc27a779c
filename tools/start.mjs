// `npm start`: checks that PostgreSQL, Redis and RabbitMQ answer (tools/preflight.mjs; one line per
// missing piece and exit 1 otherwise), builds the services and the stack launcher, and hands over to
// the launcher's `npm start` (tools/stack/src/start-cli.ts): the six services in the foreground with
// one readable, prefixed log stream, the addresses of the API and the clinic inbox once every service
// is ready, and a graceful stop on Ctrl-C (or SIGTERM).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { checkInfrastructure } from './preflight.mjs';

// Unset NODE_ENV would mean production (secrets required): the local stack is development unless the caller chose.
// Blank (`NODE_ENV= npm …`) is unset, as for the services (libs/config, nodeEnv).
if (!process.env.NODE_ENV?.trim()) process.env.NODE_ENV = 'development';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const say = (text) => console.log(`${process.stdout.isTTY && !env.NO_COLOR ? '\x1b[1m[start]\x1b[0m' : '[start]'}    ${text}`);

/** Before anything is built or started: each of PostgreSQL, Redis and RabbitMQ that does not answer is one line. */
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

const launcher = join(root, 'dist', 'tools', 'stack', 'main.cjs');
if (!existsSync(launcher)) {
  say(`missing ${launcher}: run without SKIP_BUILD once`);
  process.exit(1);
}
await import(pathToFileURL(launcher).href);
