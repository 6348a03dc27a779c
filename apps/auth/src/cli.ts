import { CommandLine, UsageError, command, option, type CommandContext, type OptionValues, type Session } from '@bedrequest/cli';
import { describeDatabase } from '@bedrequest/persistence';
import { RoutingClinicDirectory, commandLineServiceTokens } from './clinics/routing-clinic-directory';
import type { AuthCliConfig } from './config';
import { PasswordHasher } from './passwords/password-hasher';
import { openAuthDatabase } from './persistence/database';
import type { UserAccount } from './users/user';
import { UserAdministration, normalizeUsername, type ClinicDirectory, type UserInput } from './users/user-admin.service';
import { UserRepository } from './users/user.repository';

type Context = CommandContext<UserAdministration>;

const USER_OPTIONS = {
  role: option.string('referrer|clinic'),
  username: option.string('<u>'),
  password: option.string('<p>').optional(),
  /** The password as the first line of standard input: in no shell history and no process list. */
  'password-stdin': option.flag(),
  ik: option.string('<IK>[,<IK>...]'),
  'fhir-base': option.string('<url>').optional(),
};

/**
 * `npm run admin -- user ...` (docs/decisions.md, "Parties and credentials"): issues and manages the
 * credentials of referrers and clinics in the auth schema of the running stack's database. A clinic
 * user's IK is checked against routing's clinic registry over its internal API, so the stack must
 * be running for that.
 */
export const USER_CLI = new CommandLine<UserAdministration>({
  program: 'npm run admin --',
  group: 'user',
  summary: 'Logins of referrers and clinics (auth). Reads DATABASE_URL, AUTH_DB_SCHEMA and ROUTING_URL from the environment.',
  commands: {
    create: command({
      summary: 'creates a login: a referrer with its IK numbers and --fhir-base, or a clinic user with its one IK',
      options: USER_OPTIONS,
      run: (values, context: Context) => saveUser('create', values, context),
    }),
    upsert: command({
      summary: 'as create, or resets an existing user (password, IK numbers, FHIR base) and enables it',
      options: USER_OPTIONS,
      run: (values, context: Context) => saveUser('upsert', values, context),
    }),
    disable: command({
      summary: 'disables a user: it can no longer log in',
      options: { username: option.string('<u>') },
      async run({ username }, { services, out }: Context) {
        const name = normalizeUsername(username);
        const users = await services();
        const result = await users.disable(name);
        out(result === 'disabled' ? `disabled user ${name}` : `user ${name} was already disabled`);
      },
    }),
    list: command({
      summary: 'lists the users (never their password hashes)',
      options: {},
      async run(_, { services, out }: Context) {
        const users = await services();
        for (const user of await users.list()) out(describe(user));
      },
    }),
  },
});

async function saveUser(mode: 'create' | 'upsert', values: OptionValues<typeof USER_OPTIONS>, context: Context): Promise<void> {
  const { services, out } = context;
  const input: UserInput = {
    role: values.role,
    username: values.username,
    ik: values.ik,
    password: await passwordOf(values, context),
    fhirBase: values['fhir-base'],
  };
  const users = await services();
  const { user, created } = mode === 'create' ? { user: await users.create(input), created: true } : await users.upsert(input);
  out(`${created ? 'created' : 'updated'} ${describe(user)}`);
}

/** The password of `--password`, or the first line of standard input with `--password-stdin`; throws UsageError. */
async function passwordOf(values: OptionValues<typeof USER_OPTIONS>, { stdin }: Context): Promise<string> {
  if (values.password !== undefined && values['password-stdin']) throw new UsageError('give the password with --password or with --password-stdin, not both');
  if (values['password-stdin']) {
    const [line = ''] = (await stdin()).split(/\r?\n/);
    if (line === '') throw new UsageError('--password-stdin: standard input holds no password');
    return line;
  }
  if (!values.password?.trim()) throw new UsageError('missing option --password (or --password-stdin)');
  return values.password;
}

/** One line per user; never the password hash. */
function describe(user: UserAccount): string {
  const status = user.disabledAt ? `disabled since ${user.disabledAt.toISOString()}` : 'active';
  const fhirBase = user.role === 'referrer' ? ` fhir-base ${user.fhirBase}` : '';
  return `${user.role} user ${user.username} (id ${user.id}) ik ${user.ikNumbers.join(',')}${fhirBase}, ${status}`;
}

/**
 * The user administration on the auth schema (migrated first, so that the CLI works before the
 * stack's first start). `clinics` defaults to routing's internal API at config.ROUTING_URL.
 */
export async function openUserAdministration(deps: { config: AuthCliConfig; clinics?: ClinicDirectory }): Promise<Session<UserAdministration>> {
  const passwords = await PasswordHasher.create();
  const prisma = await openAuthDatabase({ databaseUrl: deps.config.DATABASE_URL, schema: deps.config.AUTH_DB_SCHEMA, poolSize: 2 }).catch((error: unknown) => {
    throw new Error(`cannot open the database at ${describeDatabase(deps.config.DATABASE_URL)}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const services = new UserAdministration({
    users: new UserRepository(prisma),
    passwords,
    clinics: deps.clinics ?? new RoutingClinicDirectory(deps.config.ROUTING_URL, commandLineServiceTokens(deps.config, prisma)),
    now: Date.now,
  });
  return { services, close: () => prisma.$disconnect() };
}
