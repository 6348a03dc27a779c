import { parseArgs } from 'node:util';
import { BedCapacityRepository } from './beds/bed-capacity.repository';
import { BedCountService, type BedCountView } from './beds/bed-count.service';
import type { RoutingCliConfig } from './config';
import { DispatchRepository } from './dispatch/dispatch.repository';
import { openRoutingDatabase } from './persistence/database';
import { ClinicRegistry, parseDepartments, parseIk } from './registry/clinic-registry.service';
import { ClinicRepository } from './registry/clinic.repository';

/**
 * `npm run admin -- clinic ...` (decisions.md, "Parties and credentials"; docs/parties.md, "Clinics
 * and routing"): registers participating clinics, switches their automatic answers, sets their bed
 * counts and shows what they were sent, in the routing schema of the running stack's database.
 * Exits 0 on success, 1 with a one-line reason otherwise.
 */
export interface RoutingCliDeps {
  readonly config: RoutingCliConfig;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

export const ROUTING_CLI_USAGE = [
  'usage: npm run admin -- clinic upsert --ik <IK> --name "<name>" --departments <key>[,<key>...]',
  '       npm run admin -- clinic list',
  '       npm run admin -- clinic auto-answer --ik <IK> --enabled true|false',
  '       npm run admin -- clinic beds --ik <IK> --department <key> --date YYYY-MM-DD --free <n>',
  '       npm run admin -- clinic beds --ik <IK> [--from YYYY-MM-DD] [--to YYYY-MM-DD]',
  '       npm run admin -- clinic notifications --ik <IK> [--limit <n>]',
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
    const handler = COMMANDS.get(command ?? '');
    if (handler) return await handler(rest, deps);
    throw new UsageError(`unknown command "clinic ${command ?? ''}" (expected one of ${[...COMMANDS.keys()].map((name) => `"clinic ${name}"`).join(', ')})`);
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
  return withServices(deps, async ({ registry }) => {
    const { clinic, created } = await registry.register(input);
    const departments = clinic.departments.map((department) => `${department.code} (${department.specialty})`).join(', ');
    deps.out(`clinic ${clinic.ik} "${clinic.name}" ${created ? 'registered' : 'updated'}; departments: ${departments}`);
    return 0;
  });
}

async function list(args: readonly string[], deps: RoutingCliDeps): Promise<number> {
  parseOptions(args, {});
  return withServices(deps, async ({ registry }) => {
    for (const clinic of await registry.list()) {
      const automatic = clinic.automaticAnswers ? '  automatic answers' : '';
      deps.out(`${clinic.ik}  ${clinic.name}  [${clinic.departments.map((department) => department.code).join(', ')}]${automatic}`);
    }
    return 0;
  });
}

async function autoAnswer(args: readonly string[], deps: RoutingCliDeps): Promise<number> {
  const { values } = parseOptions(args, { ik: { type: 'string' }, enabled: { type: 'string' } });
  const ik = parseIk(required(values.ik, '--ik'));
  const enabled = required(values.enabled, '--enabled');
  if (enabled !== 'true' && enabled !== 'false') throw new UsageError(`--enabled must be true or false, got "${enabled}"`);
  return withServices(deps, async ({ registry }) => {
    const clinic = await registry.setAutomaticAnswers(ik, enabled === 'true');
    deps.out(`clinic ${clinic.ik}: automatic answers ${clinic.automaticAnswers ? 'enabled' : 'disabled'}`);
    return 0;
  });
}

/** Sets one bed count when --department, --date and --free are given, else lists the clinic's counts. */
async function beds(args: readonly string[], deps: RoutingCliDeps): Promise<number> {
  const { values } = parseOptions(args, {
    ik: { type: 'string' },
    department: { type: 'string' },
    date: { type: 'string' },
    free: { type: 'string' },
    from: { type: 'string' },
    to: { type: 'string' },
  });
  const ik = parseIk(required(values.ik, '--ik'));
  const setting = values.department !== undefined || values.date !== undefined || values.free !== undefined;
  if (setting && (values.from !== undefined || values.to !== undefined)) throw new UsageError('--from and --to list counts; they do not go with --department, --date or --free');
  return withServices(deps, async ({ bedCounts }) => {
    if (setting) {
      const count = await bedCounts.publish(ik, {
        department: required(values.department, '--department'),
        date: required(values.date, '--date'),
        freeBeds: required(values.free, '--free'),
      });
      deps.out(`clinic ${ik}: ${describeBedCount(count)}`);
      return 0;
    }
    for (const count of await bedCounts.list(ik, { from: values.from, to: values.to })) deps.out(describeBedCount(count));
    return 0;
  });
}

async function notifications(args: readonly string[], deps: RoutingCliDeps): Promise<number> {
  const { values } = parseOptions(args, { ik: { type: 'string' }, limit: { type: 'string' } });
  const ik = parseIk(required(values.ik, '--ik'));
  const limit = Number(values.limit ?? '20');
  if (!Number.isInteger(limit) || limit < 1 || limit > 500) throw new UsageError(`--limit must be a whole number from 1 to 500, got "${values.limit}"`);
  return withServices(deps, async ({ dispatches }) => {
    for (const entry of await dispatches.notificationsOf(ik, limit)) {
      const answer = entry.answer ? ` answered ${entry.answer}` : '';
      deps.out(
        `${entry.createdAt.toISOString()}  task ${entry.taskId}  v${entry.requestVersion} ${entry.change}/${entry.action}  ${entry.outcome}${answer}  ${entry.requestIdentifier}`,
      );
    }
    return 0;
  });
}

const COMMANDS: ReadonlyMap<string, (args: readonly string[], deps: RoutingCliDeps) => Promise<number>> = new Map([
  ['upsert', upsert],
  ['list', list],
  ['auto-answer', autoAnswer],
  ['beds', beds],
  ['notifications', notifications],
]);

function describeBedCount(count: BedCountView): string {
  return `${count.date} department ${count.department} (${count.specialty}): ${count.freeBeds} free, ${count.held} held, ${count.reserved} reserved, ${count.available} available`;
}

interface RoutingServices {
  registry: ClinicRegistry;
  bedCounts: BedCountService;
  dispatches: DispatchRepository;
}

async function withServices(deps: RoutingCliDeps, work: (services: RoutingServices) => Promise<number>): Promise<number> {
  const prisma = await openRoutingDatabase({
    databaseUrl: deps.config.DATABASE_URL,
    schema: deps.config.ROUTING_DB_SCHEMA,
    poolSize: 2,
  }).catch((error: unknown) => {
    throw new Error(`cannot open the database at ${describeDatabase(deps.config.DATABASE_URL)}: ${oneLine(error)}`);
  });
  try {
    const registry = new ClinicRegistry(new ClinicRepository(prisma));
    return await work({
      registry,
      bedCounts: new BedCountService(registry, new BedCapacityRepository(prisma, deps.config.ROUTING_DB_SCHEMA)),
      dispatches: new DispatchRepository(prisma, deps.config.ROUTING_DB_SCHEMA),
    });
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
