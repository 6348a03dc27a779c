import { parseArgs } from 'node:util';
import { RoutingClinicDirectory } from './clinics/routing-clinic-directory';
import type { AuthCliConfig } from './config';
import { PasswordHasher } from './passwords/password-hasher';
import { openAuthDatabase } from './persistence/database';
import type { UserAccount } from './users/user';
import { RECOMMENDED_PASSWORD_LENGTH, UserAdministration, normalizeUsername, type ClinicDirectory, type UserInput } from './users/user-admin.service';
import { UserRepository } from './users/user.repository';

/**
 * `npm run admin -- user ...` (decisions.md, "Parties and credentials"): issues and manages the
 * credentials of referrers and clinics in the auth schema of the running stack's database. Exits 0
 * on success, 1 with a one-line reason otherwise. A clinic user's IK is checked against routing's
 * clinic registry over its internal API, so the stack must be running for that.
 */
export interface AuthCliDeps {
  readonly config: AuthCliConfig;
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** Defaults to routing's internal API at config.ROUTING_URL. */
  readonly clinics?: ClinicDirectory;
}

export const AUTH_CLI_USAGE = [
  'usage: npm run admin -- user create --role referrer --username <u> --password <p> --ik <IK>[,<IK>...] --fhir-base <url>',
  '       npm run admin -- user create --role clinic --username <u> --password <p> --ik <IK>',
  '       npm run admin -- user upsert <same options as create>   (creates, or resets an existing user and enables it)',
  '       npm run admin -- user disable --username <u>',
  '       npm run admin -- user list',
].join('\n');

class UsageError extends Error {
  override name = 'UsageError';
}

const USER_OPTIONS = {
  role: { type: 'string' },
  username: { type: 'string' },
  password: { type: 'string' },
  ik: { type: 'string' },
  'fhir-base': { type: 'string' },
} as const;

export async function run(argv: readonly string[], deps: AuthCliDeps): Promise<number> {
  try {
    const [group, command, ...rest] = argv;
    if (group === '--help' || group === 'help') {
      deps.out(AUTH_CLI_USAGE);
      return 0;
    }
    if (group === undefined) throw new UsageError('missing command (try "user create", "user disable" or "user list")');
    if (group !== 'user') throw new UsageError(`unknown command "${group}" (expected "user")`);
    switch (command) {
      case 'create':
      case 'upsert':
        return await createUser(command, rest, deps);
      case 'disable':
        return await disableUser(rest, deps);
      case 'list':
        return await listUsers(rest, deps);
      default:
        throw new UsageError(`unknown command "user ${command ?? ''}" (expected create, upsert, disable or list)`);
    }
  } catch (error) {
    deps.err(`error: ${oneLine(error)}`);
    return 1;
  }
}

async function createUser(command: 'create' | 'upsert', args: readonly string[], deps: AuthCliDeps): Promise<number> {
  const { values } = parseOptions(args, USER_OPTIONS);
  const input: UserInput = {
    role: required(values.role, '--role'),
    username: required(values.username, '--username'),
    password: required(values.password, '--password'),
    ik: required(values.ik, '--ik'),
    fhirBase: values['fhir-base'],
  };
  return withAdministration(deps, async (users) => {
    const { user, created } = command === 'create' ? { user: await users.create(input), created: true } : await users.upsert(input);
    deps.out(`${created ? 'created' : 'updated'} ${describe(user)}`);
    if (input.password.length < RECOMMENDED_PASSWORD_LENGTH) {
      deps.err(`warning: the password has fewer than ${RECOMMENDED_PASSWORD_LENGTH} characters; prefer a longer one`);
    }
    return 0;
  });
}

async function disableUser(args: readonly string[], deps: AuthCliDeps): Promise<number> {
  const { values } = parseOptions(args, { username: { type: 'string' } });
  const username = normalizeUsername(required(values.username, '--username'));
  return withAdministration(deps, async (users) => {
    const result = await users.disable(username);
    deps.out(result === 'disabled' ? `disabled user ${username}` : `user ${username} was already disabled`);
    return 0;
  });
}

async function listUsers(args: readonly string[], deps: AuthCliDeps): Promise<number> {
  parseOptions(args, {});
  return withAdministration(deps, async (users) => {
    for (const user of await users.list()) deps.out(describe(user));
    return 0;
  });
}

/** One line per user; never the password hash. */
function describe(user: UserAccount): string {
  const status = user.disabledAt ? `disabled since ${user.disabledAt.toISOString()}` : 'active';
  const fhirBase = user.role === 'referrer' ? ` fhir-base ${user.fhirBase}` : '';
  return `${user.role} user ${user.username} (id ${user.id}) ik ${user.ikNumbers.join(',')}${fhirBase}, ${status}`;
}

async function withAdministration(deps: AuthCliDeps, work: (users: UserAdministration) => Promise<number>): Promise<number> {
  const prisma = await openAuthDatabase({ databaseUrl: deps.config.DATABASE_URL, schema: deps.config.AUTH_DB_SCHEMA, poolSize: 2 }).catch(
    (error: unknown) => {
      throw new Error(`cannot open the database at ${describeDatabase(deps.config.DATABASE_URL)}: ${oneLine(error)}`);
    },
  );
  try {
    const users = new UserAdministration({
      users: new UserRepository(prisma),
      passwords: await PasswordHasher.create(),
      clinics: deps.clinics ?? new RoutingClinicDirectory(deps.config.ROUTING_URL),
      now: Date.now,
    });
    return await work(users);
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
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
