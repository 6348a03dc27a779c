import { CommandLine, UsageError, command, option, type CommandContext, type OptionValues, type Session } from '@bedrequest/cli';
import { describeDatabase } from '@bedrequest/persistence';
import { ClientAdministration } from './clients/client-admin.service';
import { ClientRepository } from './clients/client.repository';
import { RoutingClinicDirectory, commandLineServiceTokens } from './clinics/routing-clinic-directory';
import { allowsPrivateClientJwks, type AuthCliConfig } from './config';
import { PartyAdministration } from './parties/party-admin.service';
import { PartyRepository } from './parties/party.repository';
import { PasswordHasher } from './passwords/password-hasher';
import { openAuthDatabase } from './persistence/database';
import type { Member } from './users/user';
import { UserAdministration, normalizeUsername, type ClinicDirectory, type UserInput } from './users/user-admin.service';
import { UserRepository } from './users/user.repository';

/** What the `user`, `party` and `client` commands work with. */
export interface AuthAdministration {
  readonly users: UserAdministration;
  readonly parties: PartyAdministration;
  readonly clients: ClientAdministration;
}

type Context = CommandContext<AuthAdministration>;

const LEGACY_OPTIONS = {
  role: option.string('referrer|clinic'),
  username: option.string('<u>'),
  password: option.string('<p>').optional(),
  /** The password as the first line of standard input: in no shell history and no process list. */
  'password-stdin': option.flag(),
  ik: option.string('<IK>[,<IK>...]'),
  'fhir-base': option.string('<url>').optional(),
};

const CREATE_OPTIONS = {
  ...LEGACY_OPTIONS,
  // Without --party, --role and --ik make a party of one (docs/parties.md); with it, the party has them.
  role: option.string('referrer|clinic').optional(),
  ik: option.string('<IK>[,<IK>...]').optional(),
  party: option.string('<party id>').optional(),
  'display-name': option.string('<name>').optional(),
  email: option.string('<e-mail>').optional(),
  admin: option.flag(),
};

/**
 * `npm run admin -- user ...` (docs/parties.md, "The command line"): issues and manages the logins
 * of the people of referrer and clinic parties in the auth schema of the running stack's database.
 * A clinic's IK is checked against routing's clinic registry over its internal API, so the stack
 * must be running for that.
 */
export const USER_CLI = new CommandLine<AuthAdministration>({
  program: 'npm run admin --',
  group: 'user',
  summary: 'Logins of the people of referrers and clinics (auth). Reads DATABASE_URL, AUTH_DB_SCHEMA and ROUTING_URL from the environment.',
  commands: {
    create: command({
      summary: 'creates a login: with --party, a person of that party; else a party of one, a referrer (IK numbers, --fhir-base) or a clinic (one IK)',
      options: CREATE_OPTIONS,
      run: (values, context: Context) => createUser(values, context),
    }),
    upsert: command({
      summary: 'as create of a party of one, or resets an existing user (password; its party: IK numbers, FHIR base) and enables it',
      options: LEGACY_OPTIONS,
      run: (values, context: Context) => saveUser('upsert', values, context),
    }),
    disable: command({
      summary: 'disables a user: it can no longer log in',
      options: { username: option.string('<u>') },
      async run({ username }, { services, out }: Context) {
        const name = normalizeUsername(username);
        const { users } = await services();
        const result = await users.disable(name);
        out(result === 'disabled' ? `disabled user ${name}` : `user ${name} was already disabled`);
      },
    }),
    list: command({
      summary: 'lists the users with their parties and display names (never their password hashes)',
      options: {},
      async run(_, { services, out }: Context) {
        const { users } = await services();
        for (const user of await users.list()) out(`${describe(user)}, party ${user.party.id}, display name "${user.displayName}"`);
      },
    }),
  },
});

async function createUser(values: OptionValues<typeof CREATE_OPTIONS>, context: Context): Promise<void> {
  if (values.party === undefined) {
    if (values['display-name'] !== undefined || values.email !== undefined || values.admin) {
      throw new UsageError('--display-name, --email and --admin go with --party (a person of an existing party)');
    }
    if (values.role === undefined) throw new UsageError('missing option --role (or --party)');
    if (values.ik === undefined) throw new UsageError('missing option --ik');
    return saveUser('create', { ...values, role: values.role, ik: values.ik }, context);
  }
  if (values.role !== undefined || values.ik !== undefined || values['fhir-base'] !== undefined) {
    throw new UsageError('--party takes no --role, --ik or --fhir-base: the party has them (npm run admin -- party update)');
  }
  const password = await passwordOf(values, context);
  const { users } = await context.services();
  const user = await users.createInParty({
    partyId: values.party,
    username: values.username,
    password,
    displayName: values['display-name'],
    email: values.email,
    administrator: values.admin,
  });
  context.out(
    `created user ${user.username} (id ${user.id}) in ${user.party.role} party ${user.party.id} "${user.party.name}"${user.administrator ? ', administrator' : ''}`,
  );
}

async function saveUser(mode: 'create' | 'upsert', values: OptionValues<typeof LEGACY_OPTIONS>, context: Context): Promise<void> {
  const { services, out } = context;
  const input: UserInput = {
    role: values.role,
    username: values.username,
    ik: values.ik,
    password: await passwordOf(values, context),
    fhirBase: values['fhir-base'],
  };
  const { users } = await services();
  const { user, created } = mode === 'create' ? { user: await users.create(input), created: true } : await users.upsert(input);
  out(`${created ? 'created' : 'updated'} ${describe(user)}`);
}

/** The password of `--password`, or the first line of standard input with `--password-stdin`; throws UsageError. */
async function passwordOf(values: { password?: string; 'password-stdin': boolean }, { stdin }: Context): Promise<string> {
  if (values.password !== undefined && values['password-stdin']) throw new UsageError('give the password with --password or with --password-stdin, not both');
  if (values['password-stdin']) {
    const [line = ''] = (await stdin()).split(/\r?\n/);
    if (line === '') throw new UsageError('--password-stdin: standard input holds no password');
    return line;
  }
  if (!values.password?.trim()) throw new UsageError('missing option --password (or --password-stdin)');
  return values.password;
}

/** One line per user, its party's role, IK numbers and FHIR base; never the password hash. */
function describe(user: Member): string {
  const { party } = user;
  const status = user.disabledAt ? `disabled since ${user.disabledAt.toISOString()}` : party.disabledAt ? 'party disabled' : 'active';
  const fhirBase = party.role === 'referrer' ? ` fhir-base ${party.fhirBase}` : '';
  return `${party.role} user ${user.username} (id ${user.id}) ik ${party.ikNumbers.join(',')}${fhirBase}, ${status}`;
}

/**
 * The user and party administration on the auth schema (migrated first, so that the CLI works before
 * the stack's first start). `clinics` defaults to routing's internal API at config.ROUTING_URL.
 */
export async function openUserAdministration(deps: { config: AuthCliConfig; clinics?: ClinicDirectory }): Promise<Session<AuthAdministration>> {
  const passwords = await PasswordHasher.create();
  const prisma = await openAuthDatabase({ databaseUrl: deps.config.DATABASE_URL, schema: deps.config.AUTH_DB_SCHEMA, poolSize: 2 }).catch((error: unknown) => {
    throw new Error(`cannot open the database at ${describeDatabase(deps.config.DATABASE_URL)}: ${error instanceof Error ? error.message : String(error)}`);
  });
  const partyRepository = new PartyRepository(prisma);
  const parties = new PartyAdministration({
    parties: partyRepository,
    clinics: deps.clinics ?? new RoutingClinicDirectory(deps.config.ROUTING_URL, commandLineServiceTokens(deps.config, prisma)),
    now: Date.now,
  });
  const users = new UserAdministration({ users: new UserRepository(prisma), parties, passwords, now: Date.now });
  const clients = new ClientAdministration({
    clients: new ClientRepository(prisma),
    parties: partyRepository,
    jwksUrls: { production: deps.config.NODE_ENV === 'production', allowPrivate: allowsPrivateClientJwks(deps.config) },
    now: Date.now,
  });
  return { services: { users, parties, clients }, close: () => prisma.$disconnect() };
}
