import { parseArgs } from 'node:util';
import type { RoutingCliConfig } from './config';
import { openRoutingDatabase } from './persistence/database';
import { ClinicRegistry, parseDepartments, parseIk } from './registry/clinic-registry.service';
import { ClinicRepository } from './registry/clinic.repository';

/**
 * `npm run admin -- clinic ...` (decisions.md, "Parties and credentials"): registers participating
 * clinics in the routing schema of the running stack's database. Exits 0 on success, 1 with a
 * one-line reason otherwise.
 */
export interface RoutingCliDeps {
  readonly config: RoutingCliConfig;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

export const ROUTING_CLI_USAGE = [
  'usage: npm run admin -- clinic upsert --ik <IK> --name "<name>" --departments <key>[,<key>...]',
  '       npm run admin -- clinic list',
].join('\n');

class UsageError extends Error {
  override name = 'UsageError';
}

export async function run(argv: readonly string[], deps: RoutingCliDeps): Promise<number> {
  try {
    const [group, command, ...rest] = argv;
    if (group === '--help' || group === 'help') {
      deps.out(ROUTING_CLI_USAGE);
      return 0;
    }
    if (group === undefined) throw new UsageError('missing command (try "clinic upsert" or "clinic list")');
    if (group !== 'clinic') throw new UsageError(`unknown command "${group}" (expected "clinic")`);
    if (command === 'upsert') return await upsert(rest, deps);
    if (command === 'list') return await list(rest, deps);
    throw new UsageError(`unknown command "clinic ${command ?? ''}" (expected "clinic upsert" or "clinic list")`);
  } catch (error) {
    deps.err(`error: ${oneLine(error)}`);
    return 1;
  }
}

async function upsert(args: readonly string[], deps: RoutingCliDeps): Promise<number> {
  const { values } = parseOptions(args, { ik: { type: 'string' }, name: { type: 'string' }, departments: { type: 'string' } });
  const input = {
    ik: parseIk(required(values.ik, '--ik')),
    name: required(values.name, '--name'),
    departments: parseDepartments(required(values.departments, '--departments').split(',')),
  };
  return withRegistry(deps, async (registry) => {
    const { clinic, created } = await registry.register(input);
    const departments = clinic.departments.map((department) => `${department.code} (${department.specialty})`).join(', ');
    deps.out(`clinic ${clinic.ik} "${clinic.name}" ${created ? 'registered' : 'updated'}; departments: ${departments}`);
    return 0;
  });
}

async function list(args: readonly string[], deps: RoutingCliDeps): Promise<number> {
  parseOptions(args, {});
  return withRegistry(deps, async (registry) => {
    for (const clinic of await registry.list()) {
      deps.out(`${clinic.ik}  ${clinic.name}  [${clinic.departments.map((department) => department.code).join(', ')}]`);
    }
    return 0;
  });
}

async function withRegistry(deps: RoutingCliDeps, work: (registry: ClinicRegistry) => Promise<number>): Promise<number> {
  const prisma = await openRoutingDatabase({
    databaseUrl: deps.config.DATABASE_URL,
    schema: deps.config.ROUTING_DB_SCHEMA,
    poolSize: 2,
  }).catch((error: unknown) => {
    throw new Error(`cannot open the database at ${describeDatabase(deps.config.DATABASE_URL)}: ${oneLine(error)}`);
  });
  try {
    return await work(new ClinicRegistry(new ClinicRepository(prisma)));
  } finally {
    await prisma.$disconnect();
  }
}

type OptionSpec = Record<string, { type: 'string' }>;

function parseOptions<T extends OptionSpec>(args: readonly string[], options: T) {
  try {
    return parseArgs({ args: [...args], options, strict: true, allowPositionals: false });
  } catch (error) {
    throw new UsageError(oneLine(error));
  }
}

function required(value: string | undefined, option: string): string {
  if (value === undefined || value.trim() === '') throw new UsageError(`missing option ${option}`);
  return value;
}

/** Host, port and database of a connection URL: never the password. */
function describeDatabase(databaseUrl: string): string {
  const url = new URL(databaseUrl);
  return `${url.hostname}:${url.port || '5432'}${url.pathname}`;
}

function oneLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, ' ').trim();
}
