// `npm run admin -- <clinic|user> ...`: the admin command line (decisions.md, "Parties and
// credentials"), run from the repository root against the running stack's database.
//
// Each service owns its part: `clinic ...` is apps/routing/src/cli.ts (the clinic registry),
// `user ...` is apps/auth/src/cli.ts (logins). This script generates the service's Prisma client if
// it is missing or older than its schema, bundles the CLI with esbuild (like the services' own
// builds, path aliases resolved, packages left in node_modules), copies its SQL migrations beside
// the bundle (the CLI migrates first, so it works before the stack's first start), and runs it with
// this Node. Configuration comes from the environment: DATABASE_URL, AUTH_DB_SCHEMA /
// ROUTING_DB_SCHEMA, ROUTING_URL (see apps/*/src/config.ts).
import { spawnSync, execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const serviceOf = { clinic: 'routing', user: 'auth' };

const args = process.argv.slice(2);
const service = serviceOf[args[0]];
if (!service) {
  const usage = [
    'usage: npm run admin -- clinic upsert --ik <IK> --name "<name>" --departments 2300,0300',
    '       npm run admin -- clinic list',
    '       npm run admin -- clinic auto-answer --ik <IK> --enabled true|false',
    '       npm run admin -- clinic beds --ik <IK> --department <key> --date YYYY-MM-DD --free <n>',
    '       npm run admin -- clinic beds --ik <IK> [--from YYYY-MM-DD] [--to YYYY-MM-DD]',
    '       npm run admin -- clinic notifications --ik <IK> [--limit <n>]',
    '       npm run admin -- user create --role referrer --username <u> --password <p> --ik <IK>[,<IK>...] --fhir-base <url>',
    '       npm run admin -- user create --role clinic --username <u> --password <p> --ik <IK>',
    '       npm run admin -- user upsert <options of user create>',
    '       npm run admin -- user disable --username <u>',
    '       npm run admin -- user list',
  ].join('\n');
  if (args[0] === '--help' || args[0] === 'help') {
    console.log(usage);
    process.exit(0);
  }
  if (args[0] === undefined) {
    console.error(usage);
    process.exit(1);
  }
  console.error(`error: unknown command "${args[0]}" (expected "clinic" or "user"; npm run admin -- --help)`);
  process.exit(1);
}

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
  buildSync({
    entryPoints: [join(projectRoot, 'src', 'cli-main.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node24',
    packages: 'external',
    tsconfig: join(root, 'tsconfig.base.json'),
    logLevel: 'error',
  });
  // Where the service's database.ts looks for migrations beside its bundle (as in dist/apps/<service>).
  cpSync(join(projectRoot, 'prisma', 'migrations'), join(scratch, 'prisma', 'migrations'), { recursive: true });
  const result = spawnSync(process.execPath, [outfile, ...args], { cwd: root, stdio: 'inherit' });
  process.exitCode = result.status ?? 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
