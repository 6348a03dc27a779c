import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@bedrequest/config';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { USER_CLI, openUserAdministration } from './cli';
import { AuthCliConfig } from './config';
import { PARTY_CLI } from './parties/party.cli';
import { PasswordHasher } from './passwords/password-hasher';
import { openAuthDatabase, type AuthDatabase } from './persistence/database';

/**
 * `npm run admin -- user ...` in-process against the real PostgreSQL. Routing's internal clinic API
 * is played by a small HTTP server answering as routing does (200 with the clinic's record for a
 * registered IK, 404 with an error body otherwise); the real API is tested in apps/routing.
 */
describe('npm run admin -- user ... and party ...', () => {
  const registeredClinics = new Set(['510000001', '510000002']);
  let routing: Server;
  let config: AuthCliConfig;
  let prisma: AuthDatabase;

  beforeAll(async () => {
    routing = createServer((req, res) => {
      const ik = /^\/internal\/clinics\/(\d+)$/.exec(req.url ?? '')?.[1];
      const [status, body] =
        ik && registeredClinics.has(ik)
          ? [200, { ik, name: `Rehaklinik ${ik}`, departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] }]
          : [404, { error: 'not_found', message: 'no participating clinic with this IK' }];
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => routing.listen(0, '127.0.0.1', resolve));
    config = loadConfig(AuthCliConfig, {
      NODE_ENV: 'test',
      DATABASE_URL: testEnvironment().databaseUrl,
      AUTH_DB_SCHEMA: uniqueName('auth_cli'),
      ROUTING_URL: `http://127.0.0.1:${(routing.address() as AddressInfo).port}`,
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => routing.close(resolve));
    await prisma?.$disconnect();
  });

  const admin = async (argv: string[], overrides: Partial<AuthCliConfig> = {}, stdin = '') => {
    const out: string[] = [];
    const err: string[] = [];
    const open = () => openUserAdministration({ config: { ...config, ...overrides } });
    const cli = argv[0] === 'party' ? PARTY_CLI : USER_CLI;
    const code = await cli.run(argv, { open, out: (line) => out.push(line), err: (line) => err.push(line), stdin: async () => stdin });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };
  const stored = async (username: string) => {
    prisma ??= await openAuthDatabase({ databaseUrl: config.DATABASE_URL, schema: config.AUTH_DB_SCHEMA, poolSize: 1 });
    return prisma.userAccount.findUnique({ where: { username } });
  };

  const referrerArgs = [
    '--role',
    'referrer',
    '--username',
    'Demo-Referrer',
    '--password',
    'referrer-password',
    '--ik',
    '260000001,260000002',
    '--fhir-base',
    'https://demo-hospital.example/fhir',
  ];

  it('creates a referrer with several IK numbers, its FHIR base and an Argon2id hash of the password', async () => {
    const result = await admin(['user', 'create', ...referrerArgs]);

    expect(result).toEqual({
      code: 0,
      out: expect.stringMatching(/^created referrer user demo-referrer \(id [0-9a-f-]{36}\) ik 260000001,260000002/),
      err: '',
    });
    const user = await stored('demo-referrer');
    expect(user).toMatchObject({ role: 'referrer', ikNumbers: ['260000001', '260000002'], fhirBase: 'https://demo-hospital.example/fhir', disabledAt: null });
    expect(user!.passwordHash).toMatch(/^\$argon2id\$/);
    await expect((await PasswordHasher.create()).verify(user!.passwordHash, 'referrer-password')).resolves.toBe(true);
  });

  it('takes a FHIR base that only begins with another as text (…/fhir2 beside …/fhir), and the same base for another login of a referrer', async () => {
    const beside = await admin([
      'user',
      'create',
      ...referrerArgs.slice(0, 3),
      'beside',
      ...referrerArgs.slice(4, 8),
      '--fhir-base',
      'https://demo-hospital.example/fhir2',
    ]);
    expect(beside).toMatchObject({ code: 0, err: '' });
    const second = await admin(['user', 'create', ...referrerArgs.slice(0, 3), 'second-login', ...referrerArgs.slice(4)]);
    expect(second).toMatchObject({ code: 0, err: '' });
  });

  it('creates a clinic user for a registered clinic', async () => {
    const result = await admin(['user', 'create', '--role', 'clinic', '--username', 'waldsee', '--password', 'clinic-password', '--ik', '510000001']);

    expect(result).toMatchObject({ code: 0, err: '' });
    expect(await stored('waldsee')).toMatchObject({ role: 'clinic', ikNumbers: ['510000001'], fhirBase: null });
  });

  it('lists users without password hashes', async () => {
    const result = await admin(['user', 'list']);

    expect(result.code).toBe(0);
    expect(result.out).toContain('referrer user demo-referrer');
    expect(result.out).toContain('clinic user waldsee');
    expect(result.out).not.toContain('argon2');
  });

  it('disables a user, and says so again without failing', async () => {
    await admin(['user', 'create', '--role', 'clinic', '--username', 'bergblick', '--password', 'clinic-password', '--ik', '510000002']);

    expect(await admin(['user', 'disable', '--username', 'Bergblick'])).toEqual({ code: 0, out: 'disabled user bergblick', err: '' });
    expect((await stored('bergblick'))!.disabledAt).toBeInstanceOf(Date);
    expect((await admin(['user', 'disable', '--username', 'bergblick'])).out).toBe('user bergblick was already disabled');
    expect((await admin(['user', 'list'])).out).toMatch(/clinic user bergblick .* disabled since /);
  });

  it('upsert resets the password of an existing user and enables it again', async () => {
    const result = await admin(['user', 'upsert', '--role', 'clinic', '--username', 'bergblick', '--password', 'new-clinic-password', '--ik', '510000002']);

    expect(result.out).toMatch(/^updated clinic user bergblick/);
    const user = await stored('bergblick');
    expect(user!.disabledAt).toBeNull();
    await expect((await PasswordHasher.create()).verify(user!.passwordHash, 'new-clinic-password')).resolves.toBe(true);
  });

  const clinicArgs = (ik: string) => ['user', 'create', '--role', 'clinic', '--username', `clinic-${ik}`, '--password', 'clinic-password', '--ik', ik];

  it.each([
    ['a duplicate username', ['user', 'create', ...referrerArgs], 'a user named "demo-referrer" already exists'],
    ['an unknown clinic IK', clinicArgs('519999999'), 'unknown clinic IK 519999999: register the clinic first'],
    ['a malformed IK', clinicArgs('51000001'), 'malformed IK number "51000001": an IK number is 9 digits'],
    [
      'a malformed IK among several',
      ['user', 'create', ...referrerArgs.slice(0, 6), '--ik', '260000001,26000000x', '--fhir-base', 'https://x.example/fhir'],
      'malformed IK number "26000000x"',
    ],
    [
      'two IK numbers for a clinic user',
      ['user', 'create', '--role', 'clinic', '--username', 'two', '--password', 'clinic-password', '--ik', '510000001,510000002'],
      'exactly one IK number',
    ],
    ['a referrer without FHIR base', ['user', 'create', ...referrerArgs.slice(0, 8)], 'missing option --fhir-base'],
    ['a bad FHIR base URL', ['user', 'create', ...referrerArgs.slice(0, 8), '--fhir-base', 'demo-hospital/fhir'], 'bad URL "demo-hospital/fhir"'],
    ['a non-http FHIR base URL', ['user', 'create', ...referrerArgs.slice(0, 8), '--fhir-base', 'ftp://demo.example/fhir'], 'bad URL'],
    ['a FHIR base for a clinic user', [...clinicArgs('510000001'), '--fhir-base', 'https://x.example/fhir'], '--fhir-base applies to referrers only'],
    [
      'an unknown role',
      ['user', 'create', '--role', 'admin', '--username', 'root', '--password', 'root-password', '--ik', '260000001'],
      'unknown role "admin"',
    ],
    [
      'a malformed username',
      ['user', 'create', '--role', 'clinic', '--username', 'a b', '--password', 'clinic-password', '--ik', '510000001'],
      'malformed username',
    ],
    ['disabling an unknown user', ['user', 'disable', '--username', 'ghost'], 'no user named "ghost"'],
    // Another referrer's base (https://demo-hospital.example/fhir, the first test's) inside or around this one.
    [
      'a FHIR base inside another referrer’s',
      ['user', 'create', ...referrerArgs.slice(0, 3), 'inner', ...referrerArgs.slice(4, 8), '--fhir-base', 'https://demo-hospital.example/fhir/station-2'],
      'overlaps the FHIR base https://demo-hospital.example/fhir of referrer demo-referrer',
    ],
    [
      'a FHIR base around another referrer’s',
      ['user', 'create', ...referrerArgs.slice(0, 3), 'outer', ...referrerArgs.slice(4, 8), '--fhir-base', 'https://demo-hospital.example/'],
      'overlaps the FHIR base https://demo-hospital.example/fhir',
    ],
  ])('refuses %s with exit code 1 and a one-line reason', async (_case, argv, reason) => {
    const result = await admin(argv);

    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toContain(reason);
    expect(result.err).not.toContain('\n');
  });

  it.each([
    ['a missing password', ['user', 'create', '--role', 'clinic', '--username', 'x', '--ik', '510000001'], 'missing option --password'],
    ['an empty password', ['user', 'create', '--role', 'clinic', '--username', 'x', '--password', '', '--ik', '510000001'], 'missing option --password'],
    [
      'an unknown option',
      [...clinicArgs('510000001'), '--root'],
      'unknown option --root (user create takes --role, --username, --password, --password-stdin, --ik, --fhir-base, --party, --display-name, --email, --admin)',
    ],
    ['an unknown command', ['user', 'delete'], 'unknown command "user delete" (expected one of "user create", "user upsert", "user disable", "user list")'],
    ['no command', [], 'missing command'],
  ])('refuses %s as a usage error: exit code 2 and a pointer to --help', async (_case, argv, reason) => {
    const result = await admin(argv);

    expect(result).toEqual({ code: 2, out: '', err: expect.stringContaining(reason) });
    expect(result.err).toMatch(/; see npm run admin -- user --help$/);
    expect(result.err).not.toContain('\n');
  });

  it('answers --help with every command and its options, without opening the database', async () => {
    const result = await admin(['user', '--help'], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/unreachable' });

    expect(result).toMatchObject({ code: 0, err: '' });
    expect(result.out).toContain(
      '\n  user create [--role referrer|clinic] --username <u> [--password <p>] [--password-stdin] [--ik <IK>[,<IK>...]] [--fhir-base <url>] [--party <party id>] [--display-name <name>] [--email <e-mail>] [--admin]\n',
    );
    for (const command of ['upsert', 'disable --username <u>', 'list']) expect(result.out).toContain(`\n  user ${command}`);
  });

  it('reads the password from standard input with --password-stdin (its first line), so that it is in no shell history or process list', async () => {
    const argv = ['user', 'create', '--role', 'clinic', '--username', 'stdin-user', '--password-stdin', '--ik', '510000001'];
    expect(await admin(argv, {}, 'password-from-stdin\nnot this line\n')).toMatchObject({ code: 0, err: '' });
    const hash = (await stored('stdin-user'))!.passwordHash;
    expect(await (await PasswordHasher.create()).verify(hash, 'password-from-stdin')).toBe(true);
  });

  it.each([
    ['both --password and --password-stdin', ['--password', 'password-twice-1', '--password-stdin'], 'password-twice-2\n'],
    ['--password-stdin with nothing on standard input', ['--password-stdin'], ''],
  ])('refuses %s', async (_, passwordArgs, stdin) => {
    const result = await admin(['user', 'create', '--role', 'clinic', '--username', 'twice', ...passwordArgs, '--ik', '510000001'], {}, stdin);
    expect(result.code).toBe(2);
    expect(result.err).toContain('--password');
    expect(await stored('twice')).toBeNull();
  });

  it.each(['production', 'development', 'test'] as const)(
    'refuses a password shorter than 12 characters with NODE_ENV=%s, to create or to reset a user',
    async (NODE_ENV) => {
      const user = (command: string, username: string, password: string) =>
        admin(['user', command, '--role', 'clinic', '--username', username, '--password', password, '--ik', '510000001'], { NODE_ENV });
      for (const command of ['create', 'upsert']) {
        expect(await user(command, `short-${command}-${NODE_ENV}`, 'eleven-char')).toEqual({
          code: 1,
          out: '',
          err: 'error: the password must have at least 12 characters (and at most 256)',
        });
        expect(await stored(`short-${command}-${NODE_ENV}`)).toBeNull();
      }
      // Resetting an existing user's password to a short one leaves the old one. A referrer: production
      // signs its question to routing about a clinic's IK with auth's signing key, which this test has not.
      const referrer = (command: string, password: string) =>
        admin(
          [
            'user',
            command,
            '--role',
            'referrer',
            '--username',
            `reset-${NODE_ENV}`,
            '--password',
            password,
            '--ik',
            '260000003',
            '--fhir-base',
            `https://reset-${NODE_ENV}.example/fhir`,
          ],
          { NODE_ENV },
        );
      expect(await referrer('create', 'twelve-chars')).toEqual({ code: 0, out: expect.stringMatching(/^created referrer user/), err: '' });
      expect(await referrer('upsert', 'eleven-char')).toMatchObject({ code: 1, err: expect.stringContaining('at least 12 characters') });
      await expect((await PasswordHasher.create()).verify((await stored(`reset-${NODE_ENV}`))!.passwordHash, 'twelve-chars')).resolves.toBe(true);
    },
  );

  it('tells to start the stack when routing cannot be reached to check a clinic IK', async () => {
    const result = await admin(clinicArgs('510000001'), { ROUTING_URL: 'http://127.0.0.1:1' });

    expect(result.code).toBe(1);
    expect(result.err).toBe('error: cannot reach the routing service at http://127.0.0.1:1 to check clinic IK 510000001: start the stack first (npm start)');
    expect(await stored('clinic-510000001')).toBeNull();
  });

  it('never prints the password', async () => {
    const results = [await admin(['user', 'create', ...referrerArgs]), await admin(['user', 'list'])];

    for (const result of results) expect(result.out + result.err).not.toContain('referrer-password');
  });

  describe('parties with several people (docs/parties.md, "The command line")', () => {
    const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
    const party = async (...args: string[]) => {
      const result = await admin(['party', 'create', ...args]);
      expect(result).toMatchObject({ code: 0, err: '', out: expect.stringMatching(UUID) });
      return result.out;
    };
    const person = (partyId: string, username: string, ...args: string[]) =>
      admin(['user', 'create', '--party', partyId, '--username', username, '--password', `${username}-password`, ...args]);
    const storedParty = async (id: string) => {
      await stored('nobody');
      return prisma.party.findUnique({ where: { id } });
    };

    it('creates a party, prints its id, and adds people to it with display name, e-mail and administrator flag', async () => {
      const id = await party(
        '--role',
        'referrer',
        '--name',
        'Klinikum Nord',
        '--ik',
        '260000011,260000012',
        '--fhir-base',
        'https://nord.example/fhir',
        '--contact-email',
        'sozialdienst@nord.example',
        '--contact-name',
        'Sozialdienst, Frau Kaiser',
        '--contact-phone',
        '+49 40 1234-567',
      );

      const first = await person(id, 'Nord-Erika', '--display-name', 'Erika Muster', '--email', 'erika@nord.example', '--admin');
      const second = await person(id, 'nord-max');

      expect(first).toEqual({
        code: 0,
        out: expect.stringMatching(new RegExp(`^created user nord-erika \\(id [0-9a-f-]{36}\\) in referrer party ${id} "Klinikum Nord", administrator$`)),
        err: '',
      });
      expect(second).toMatchObject({ code: 0, err: '' });
      expect(await storedParty(id)).toMatchObject({
        role: 'referrer',
        name: 'Klinikum Nord',
        ikNumbers: ['260000011', '260000012'],
        fhirBase: 'https://nord.example/fhir',
        contactEmail: 'sozialdienst@nord.example',
        contactName: 'Sozialdienst, Frau Kaiser',
        contactPhone: '+49 40 1234-567',
        disabledAt: null,
      });
      expect(await stored('nord-erika')).toMatchObject({
        partyId: id,
        displayName: 'Erika Muster',
        email: 'erika@nord.example',
        administrator: true,
        role: null,
        fhirBase: null,
      });
      expect(await stored('nord-max')).toMatchObject({ partyId: id, displayName: 'nord-max', email: null, administrator: false });
      expect((await stored('nord-max'))!.id).not.toBe(id);

      const parties = await admin(['party', 'list']);
      expect(parties.out).toContain(
        `referrer party ${id} "Klinikum Nord" ik 260000011,260000012 fhir-base https://nord.example/fhir contact "Sozialdienst, Frau Kaiser" +49 40 1234-567 sozialdienst@nord.example, active, 2 users`,
      );
      const users = await admin(['user', 'list']);
      expect(users.out).toContain(
        `referrer user nord-erika (id ${(await stored('nord-erika'))!.id}) ik 260000011,260000012 fhir-base https://nord.example/fhir, active, party ${id}, display name "Erika Muster"`,
      );
    });

    it('keeps user create --role as it was: a party of one, whose id and name are the user’s, listed with the user as its party', async () => {
      const result = await admin(['user', 'create', '--role', 'clinic', '--username', 'alone', '--password', 'clinic-password', '--ik', '510000002']);

      expect(result).toEqual({ code: 0, out: expect.stringMatching(/^created clinic user alone \(id [0-9a-f-]{36}\) ik 510000002, active$/), err: '' });
      const user = (await stored('alone'))!;
      expect(user).toMatchObject({ partyId: user.id, displayName: 'alone', role: 'clinic', ikNumbers: ['510000002'] });
      expect(await storedParty(user.id)).toMatchObject({ role: 'clinic', name: 'alone', ikNumbers: ['510000002'] });
      expect((await admin(['user', 'list'])).out).toContain(`clinic user alone (id ${user.id}) ik 510000002, active, party ${user.id}, display name "alone"`);
    });

    it('creates a clinic party for a registered clinic, and updates a party’s name, IK numbers, FHIR base and e-mail', async () => {
      const clinic = await party('--role', 'clinic', '--name', 'Rehaklinik Waldsee', '--ik', '510000001');
      const referrer = await party('--role', 'referrer', '--name', 'Klinikum Süd', '--ik', '260000021', '--fhir-base', 'https://sued.example/fhir');

      const renamed = await admin(['party', 'update', '--id', clinic, '--name', 'Waldsee', '--contact-email', 'info@waldsee.example']);
      const moved = await admin(['party', 'update', '--id', referrer, '--ik', '260000021,260000022', '--fhir-base', 'https://sued.example/fhir/v2']);

      expect(renamed).toEqual({ code: 0, out: `updated clinic party ${clinic} "Waldsee" ik 510000001 contact info@waldsee.example, active`, err: '' });
      // A blank contact option removes it.
      expect(await admin(['party', 'update', '--id', clinic, '--contact-email', ''])).toEqual({
        code: 0,
        out: `updated clinic party ${clinic} "Waldsee" ik 510000001, active`,
        err: '',
      });
      expect(moved).toMatchObject({ code: 0, err: '' });
      expect(await storedParty(referrer)).toMatchObject({
        name: 'Klinikum Süd',
        ikNumbers: ['260000021', '260000022'],
        fhirBase: 'https://sued.example/fhir/v2',
      });
    });

    it('updates the old columns of a party of one, for auth 1.0 processes of a rollout (docs/compatibility.md, "1.1")', async () => {
      await admin([
        'user',
        'create',
        '--role',
        'referrer',
        '--username',
        'mirrored',
        '--password',
        'referrer-password',
        '--ik',
        '260000031',
        '--fhir-base',
        'https://mirror.example/fhir',
      ]);
      const { id } = (await stored('mirrored'))!;

      expect(await admin(['party', 'update', '--id', id, '--ik', '260000031,260000032'])).toMatchObject({ code: 0, err: '' });

      expect(await stored('mirrored')).toMatchObject({ role: 'referrer', ikNumbers: ['260000031', '260000032'], fhirBase: 'https://mirror.example/fhir' });
    });

    it("upsert of a person resets the password and sets the party's IK numbers, but changes the role only of a party of one", async () => {
      const id = await party('--role', 'referrer', '--name', 'Klinikum West', '--ik', '260000061', '--fhir-base', 'https://west.example/fhir');
      await person(id, 'west-1');
      await person(id, 'west-2');
      const upsert = (...args: string[]) => admin(['user', 'upsert', '--username', 'west-1', '--password', 'west-new-password', ...args]);

      const sameRole = await upsert('--role', 'referrer', '--ik', '260000061,260000062', '--fhir-base', 'https://west.example/fhir');
      const otherRole = await upsert('--role', 'clinic', '--ik', '510000001');

      expect(sameRole).toMatchObject({ code: 0, out: expect.stringMatching(/^updated referrer user west-1 .* ik 260000061,260000062 /) });
      expect(await storedParty(id)).toMatchObject({ role: 'referrer', ikNumbers: ['260000061', '260000062'] });
      expect(otherRole).toEqual({
        code: 1,
        out: '',
        err: 'error: user west-1 belongs to a party with other users: its role cannot become clinic (create a new party)',
      });
      expect(await storedParty(id)).toMatchObject({ role: 'referrer' });
    });

    it('disables a party, says so again without failing, and adds no one to it', async () => {
      const id = await party('--role', 'referrer', '--name', 'Klinikum Ost', '--ik', '260000041', '--fhir-base', 'https://ost.example/fhir');

      expect(await admin(['party', 'disable', '--id', id])).toEqual({ code: 0, out: `disabled party ${id}`, err: '' });
      expect((await storedParty(id))!.disabledAt).toBeInstanceOf(Date);
      expect((await admin(['party', 'disable', '--id', id])).out).toBe(`party ${id} was already disabled`);
      expect((await admin(['party', 'list'])).out).toMatch(new RegExp(`party ${id} "Klinikum Ost" .* disabled since .*, 0 users`));
      expect(await person(id, 'ost-late')).toEqual({ code: 1, out: '', err: `error: party ${id} is disabled: its users cannot log in` });
    });

    const referrerParty = (name: string, base: string) => ['party', 'create', '--role', 'referrer', '--name', name, '--ik', '260000051', '--fhir-base', base];
    it.each([
      [
        'an unknown party',
        ['user', 'create', '--party', '00000000-0000-4000-8000-000000000000', '--username', 'p1', '--password', 'person-password'],
        'no party with id "00000000-0000-4000-8000-000000000000"',
      ],
      ['a party id that is no uuid', ['user', 'create', '--party', 'nord', '--username', 'p2', '--password', 'person-password'], 'no party with id "nord"'],
      ['a short password of a person', ['user', 'create', '--party', '%nord%', '--username', 'p3', '--password', 'short'], 'at least 12 characters'],
      [
        'an unknown clinic IK',
        ['party', 'create', '--role', 'clinic', '--name', 'X', '--ik', '519999999'],
        'unknown clinic IK 519999999: register the clinic first',
      ],
      [
        'two IK numbers for a clinic',
        ['party', 'create', '--role', 'clinic', '--name', 'X', '--ik', '510000001,510000002'],
        'a clinic is bound to exactly one IK number',
      ],
      ['a malformed IK', ['party', 'create', '--role', 'clinic', '--name', 'X', '--ik', '51000001'], 'malformed IK number "51000001"'],
      ['a referrer without FHIR base', ['party', 'create', '--role', 'referrer', '--name', 'X', '--ik', '260000001'], 'missing option --fhir-base'],
      [
        'a FHIR base for a clinic',
        ['party', 'create', '--role', 'clinic', '--name', 'X', '--ik', '510000001', '--fhir-base', 'https://x.example/fhir'],
        '--fhir-base applies to referrers only',
      ],
      ['an unknown role', ['party', 'create', '--role', 'admin', '--name', 'X', '--ik', '260000001'], 'unknown role "admin"'],
      ['a bad contact e-mail', [...referrerParty('X', 'https://x1.example/fhir'), '--contact-email', 'nobody'], 'bad --contact-email "nobody"'],
      [
        'a bad contact telephone',
        [...referrerParty('X', 'https://x1.example/fhir'), '--contact-phone', 'ask the porter'],
        'bad --contact-phone "ask the porter"',
      ],
      // The first test's referrer (https://demo-hospital.example/fhir, a party of one) inside or around another party's base.
      [
        'a FHIR base inside another party’s',
        referrerParty('Inner', 'https://demo-hospital.example/fhir/station'),
        'overlaps the FHIR base https://demo-hospital.example/fhir of referrer demo-referrer',
      ],
      [
        'an update moving a FHIR base around another party’s',
        ['party', 'update', '--id', '%nord%', '--fhir-base', 'https://demo-hospital.example/'],
        'overlaps the FHIR base https://demo-hospital.example/fhir',
      ],
      ['an update of an unknown party', ['party', 'update', '--id', '00000000-0000-4000-8000-000000000000', '--name', 'X'], 'no party with id'],
      ['disabling an unknown party', ['party', 'disable', '--id', '00000000-0000-4000-8000-000000000000'], 'no party with id'],
      [
        'a duplicate username in a party',
        ['user', 'create', '--party', '%nord%', '--username', 'nord-max', '--password', 'person-password'],
        'a user named "nord-max" already exists',
      ],
    ])('refuses %s with exit code 1 and a one-line reason', async (_case, argv, reason) => {
      const nord = (await prisma.party.findFirstOrThrow({ where: { name: 'Klinikum Nord' } })).id;
      const result = await admin(argv.map((arg) => (arg === '%nord%' ? nord : arg)));

      expect(result).toEqual({ code: 1, out: '', err: expect.stringContaining(reason) });
      expect(result.err).not.toContain('\n');
    });

    it.each([
      [
        '--party with --role',
        ['user', 'create', '--party', 'x', '--role', 'clinic', '--username', 'u', '--password', 'person-password'],
        '--party takes no --role, --ik or --fhir-base',
      ],
      [
        '--party with --ik',
        ['user', 'create', '--party', 'x', '--ik', '510000001', '--username', 'u', '--password', 'person-password'],
        '--party takes no --role',
      ],
      ['--display-name without --party', [...clinicArgs('510000001'), '--display-name', 'Erika'], '--display-name, --email and --admin go with --party'],
      [
        'neither --party nor --role',
        ['user', 'create', '--username', 'u', '--password', 'person-password', '--ik', '510000001'],
        'missing option --role (or --party)',
      ],
      ['--role without --ik', ['user', 'create', '--role', 'clinic', '--username', 'u', '--password', 'person-password'], 'missing option --ik'],
      ['party create without --name', ['party', 'create', '--role', 'clinic', '--ik', '510000001'], 'missing option --name'],
      ['party disable without --id', ['party', 'disable'], 'missing option --id'],
      [
        'an unknown party command',
        ['party', 'delete'],
        'unknown command "party delete" (expected one of "party create", "party update", "party list", "party disable")',
      ],
    ])('refuses %s as a usage error: exit code 2', async (_case, argv, reason) => {
      const result = await admin(argv);

      expect(result).toEqual({ code: 2, out: '', err: expect.stringContaining(reason) });
      expect(result.err).toMatch(new RegExp(`; see npm run admin -- ${argv[0]} --help$`));
    });

    it('answers party --help with every command and its options, without opening the database', async () => {
      const result = await admin(['party', '--help'], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/unreachable' });

      expect(result).toMatchObject({ code: 0, err: '' });
      expect(result.out).toContain(
        '\n  party create --role referrer|clinic --name <name> --ik <IK>[,<IK>...] [--fhir-base <url>] [--contact-email <e-mail>] [--contact-name <name>] [--contact-phone <telephone>]\n',
      );
      for (const command of ['update --id <party id>', 'list', 'disable --id <party id>']) expect(result.out).toContain(`\n  party ${command}`);
    });
  });
});
