// `npm run admin -- <clinic|party|user|client|audit|request|dead-letters|intake|notifier|receiver|provision> ...`: the admin command line (docs/decisions.md, "Parties
// and credentials"), run from the repository root against the running stack's database.
//
// Each service owns its part, and its usage text (`npm run admin -- clinic --help`): `clinic ...` is
// apps/routing/src/cli.ts (the clinic registry), `party ...`, `user ...` and `client ...` are apps/auth/src/cli.ts
// (parties, the logins of their people and their system clients, docs/parties.md),
// `audit ...` (the audit trail's verification and its anchors' export), `request ...` (an audited
// export of a request),
// `dead-letters ...` (every service's dead-letter queues, audited) and `intake ...` (its keys for data
// at rest) are apps/intake/src/cli.ts, `notifier ...` (its keys for data at rest, docs/data-protection.md)
// is apps/notifier/src/cli.ts and `receiver ...` (the check of a webhook receiver, docs/webhooks.md;
// no database) apps/notifier/src/receiver-check.cli.ts, all on @bedrequest/cli. This script generates the service's Prisma
// client if it is missing or older than its schema, bundles the CLI (libs/testing/src/bundle-entry.mjs), copies
// its SQL migrations beside the bundle (the CLI migrates first, so it works before the stack's first
// start), and runs it with this Node. Configuration comes from the environment: DATABASE_URL, AUTH_DB_SCHEMA /
// ROUTING_DB_SCHEMA / INTAKE_DB_SCHEMA / NOTIFIER_DB_SCHEMA, ROUTING_URL, DATA_KEK..., AMQP_URL (see apps/*/src/config.ts). Exit codes as the
// CLIs': 0 done, 1 the command failed, 2 the command line was wrong.
import { spawnSync, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleEntry } from '../libs/testing/src/bundle-entry.mjs';

// Unset NODE_ENV would mean production (secrets required): default to the local stack; NODE_ENV=production still works.
// Blank (`NODE_ENV= npm run admin …`) is unset, as for the services (libs/config, nodeEnv).
if (!process.env.NODE_ENV?.trim()) process.env.NODE_ENV = 'development';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const serviceOf = {
  clinic: 'routing',
  party: 'auth',
  user: 'auth',
  client: 'auth',
  audit: 'intake',
  request: 'intake',
  'dead-letters': 'intake',
  intake: 'intake',
  record: 'intake',
  notifier: 'notifier',
  receiver: 'notifier',
};
const USAGE_ERROR = 2;

const args = process.argv.slice(2);
if (args[0] === '--help' || args[0] === '-h' || args[0] === 'help') {
  // Each service's usage text, then provisioning's, a blank line between them.
  const codes = Object.keys(serviceOf).map((group, index) => {
    if (index > 0) console.log('');
    return runCli(group, [group, '--help']);
  });
  console.log('');
  codes.push(runProvision(['provision', '--help']));
  process.exitCode = Math.max(...codes);
} else if (Object.hasOwn(serviceOf, args[0] ?? '')) {
  process.exitCode = runCli(args[0], args);
} else if (args[0] === 'provision') {
  process.exitCode = runProvision(args);
} else {
  const problem = args[0] === undefined ? 'missing command' : `unknown command "${args[0]}"`;
  console.error(
    `error: ${problem} (expected ${[...Object.keys(serviceOf), 'provision'].map((group) => `"${group}"`).join(', ')}); see npm run admin -- --help`,
  );
  process.exitCode = USAGE_ERROR;
}

/** `provision`: tools/provision's command line (docs/operations.md, "Provisioning"), bundled like a service's. */
function runProvision(args) {
  const scratchRoot = join(root, 'tmp', 'admin');
  mkdirSync(scratchRoot, { recursive: true });
  const scratch = mkdtempSync(join(scratchRoot, 'provision-'));
  try {
    const outfile = join(scratch, 'cli.cjs');
    bundleEntry(root, { entryPoints: [join(root, 'tools', 'provision', 'src', 'cli-main.ts')], outfile });
    return spawnSync(process.execPath, [outfile, ...args], { cwd: root, stdio: 'inherit' }).status ?? 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Runs `args` with the CLI of the service that owns `group`; returns its exit code. */
function runCli(group, args) {
  const service = serviceOf[group];
  const projectRoot = join(root, 'apps', service);
  const schema = join(projectRoot, 'prisma', 'schema.prisma');
  const client = join(projectRoot, 'src', 'generated', 'prisma', 'client.ts');
  if (!existsSync(client) || statSync(client).mtimeMs < statSync(schema).mtimeMs) {
    execFileSync(process.execPath, [join(root, 'tools', 'prisma-generate.mjs'), `apps/${service}`], { cwd: root, stdio: 'inherit' });
  }
  // Inside the workspace (tmp/ is git-ignored) so that the external packages resolve from node_modules.
  const scratchRoot = join(root, 'tmp', 'admin');
  mkdirSync(scratchRoot, { recursive: true });
  const scratch = mkdtempSync(join(scratchRoot, `${service}-`));
  try {
    const outfile = join(scratch, 'cli.cjs');
    bundleEntry(root, { entryPoints: [join(projectRoot, 'src', 'cli-main.ts')], outfile });
    // Where the service's database.ts looks for migrations beside its bundle (as in dist/apps/<service>).
    cpSync(join(projectRoot, 'prisma', 'migrations'), join(scratch, 'prisma', 'migrations'), { recursive: true });
    return spawnSync(process.execPath, [outfile, ...args], { cwd: root, stdio: 'inherit' }).status ?? 1;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
