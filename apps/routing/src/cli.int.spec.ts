import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { CLINIC_CLI, openRoutingServices } from './cli';
import type { RoutingCliConfig } from './config';
import { openRoutingDatabase } from './persistence/database';

const env = testEnvironment();

describe('npm run admin -- clinic ... against the real PostgreSQL', () => {
  const config: RoutingCliConfig = { NODE_ENV: 'test', DATABASE_URL: env.databaseUrl, ROUTING_DB_SCHEMA: uniqueName('routing_cli'), DATABASE_POOL_SIZE: 2 };

  const admin = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await CLINIC_CLI.run(argv, { open: () => openRoutingServices(config), out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  const storedClinics = async () => {
    const prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema: config.ROUTING_DB_SCHEMA, poolSize: 1 });
    try {
      return await prisma.clinic.findMany({ orderBy: { ik: 'asc' }, select: { ik: true, name: true, departments: true } });
    } finally {
      await prisma.$disconnect();
    }
  };

  it('registers a clinic, migrating the schema first, and updates it on a second upsert', async () => {
    const created = await admin('clinic', 'upsert', '--ik', '510000001', '--name', 'Reha-Klinik Am Waldsee', '--departments', '2300,0300');
    expect(created).toEqual({ code: 0, out: expect.stringContaining('registered'), err: '' });

    const updated = await admin('clinic', 'upsert', '--ik', '510000001', '--name', 'Reha-Klinik Am Waldsee', '--departments', '2300,0300,2800');
    expect(updated).toEqual({ code: 0, out: expect.stringContaining('updated'), err: '' });

    expect(await storedClinics()).toEqual([{ ik: '510000001', name: 'Reha-Klinik Am Waldsee', departments: ['2300', '0300', '2800'] }]);
    expect((await admin('clinic', 'list')).out).toContain('510000001  Reha-Klinik Am Waldsee  [2300, 0300, 2800]');
  });

  it('stores a postal code and coordinates, keeps them on an upsert without them, and announces them to the services', async () => {
    const located = await admin(
      ...['clinic', 'upsert', '--ik', '510000031', '--name', 'Reha Mitte', '--departments', '2300'],
      ...['--postal-code', '10115', '--latitude', '52.532', '--longitude', '13.384'],
    );
    expect(located).toEqual({ code: 0, out: expect.stringContaining('location: 10115 52.532, 13.384'), err: '' });
    await admin('clinic', 'upsert', '--ik', '510000031', '--name', 'Reha Mitte am Park', '--departments', '2300,0300');

    const prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema: config.ROUTING_DB_SCHEMA, poolSize: 1 });
    try {
      expect(await prisma.clinic.findUnique({ where: { ik: '510000031' }, select: { postalCode: true, latitude: true, longitude: true } })).toEqual({
        postalCode: '10115',
        latitude: 52.532,
        longitude: 13.384,
      });
      const [announced] = await prisma.outboxMessage.findMany({
        where: { routingKey: { startsWith: 'clinic.registry.changed' } },
        orderBy: { id: 'desc' },
        take: 1,
      });
      expect(announced?.envelope).toMatchObject({
        payload: { clinic: { ik: '510000031', name: 'Reha Mitte am Park', postalCode: '10115', coordinates: { latitude: 52.532, longitude: 13.384 } } },
      });
    } finally {
      await prisma.$disconnect();
    }
  });

  it.each([
    [['clinic', 'upsert', '--ik', '51000001', '--name', 'X', '--departments', '2300'], 'malformed IK number "51000001"'],
    [['clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '2300,9999'], 'unknown department key "9999"'],
    [['clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '2300', '--postal-code', '1011'], 'malformed postal code "1011"'],
    [['clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '2300', '--latitude', '52.5'], '--latitude and --longitude go together'],
    [
      ['clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '2300', '--latitude', '95', '--longitude', '13.4'],
      'malformed latitude "95": decimal degrees from -90 to 90',
    ],
    [
      ['clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '2300', '--latitude', '52.5', '--longitude', 'east'],
      'malformed longitude "east"',
    ],
  ])('refuses %j with exit code 1 and a one-line reason', async (argv, reason) => {
    const result = await admin(...argv);

    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toContain(reason);
    expect(result.err).not.toContain('\n');
  });

  it.each([
    [['clinic', 'upsert', '--ik', '510000009', '--departments', '2300'], 'missing option --name'],
    [['clinic', 'upsert', '--ik', '510000009', '--name', 'X'], 'missing option --departments'],
    [
      ['clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '2300', '--colour', 'red'],
      'unknown option --colour (clinic upsert takes --ik, --name, --departments, --postal-code, --latitude, --longitude)',
    ],
    [
      ['clinic', 'remove'],
      'unknown command "clinic remove" (expected one of "clinic upsert", "clinic list", "clinic auto-answer", "clinic beds", "clinic notifications")',
    ],
    [['clinic', 'beds', '--ik', '510000022', '--department', '2300', '--date', '2036-12-01'], 'missing option --free'],
    [
      ['clinic', 'beds', '--ik', '510000022', '--department', '2300', '--from', '2036-12-01'],
      '--from and --to list counts; they do not go with --department, --date or --free',
    ],
    [['clinic', 'notifications', '--ik', '510000022', '--limit', '0'], '--limit must be a whole number from 1 to 500, got "0"'],
    [[], 'missing command'],
  ])('refuses %j as a usage error: exit code 2 and a pointer to --help', async (argv, reason) => {
    const result = await admin(...argv);

    expect(result).toEqual({ code: 2, out: '', err: expect.stringContaining(reason) });
    expect(result.err).toMatch(/; see npm run admin -- clinic --help$/);
    expect(result.err).not.toContain('\n');
  });

  it('describes every command in its --help', async () => {
    const result = await admin('clinic', '--help');

    expect(result.code).toBe(0);
    expect(result.out.split('\n')).toEqual(
      expect.arrayContaining([
        'usage: npm run admin -- clinic <command> [options]',
        '  clinic upsert --ik <IK> --name "<name>" --departments <key>[,<key>...] [--postal-code <5 digits>] [--latitude <degrees>] [--longitude <degrees>]',
        '  clinic list',
        '  clinic auto-answer --ik <IK> --enabled true|false',
        '  clinic beds --ik <IK> [--department <key>] [--date YYYY-MM-DD] [--free <n>] [--from YYYY-MM-DD] [--to YYYY-MM-DD]',
        '  clinic notifications --ik <IK> [--limit <n>]',
      ]),
    );
  });

  it('stores nothing when the input is refused', async () => {
    await admin('clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '9999');
    expect((await storedClinics()).map((clinic) => clinic.ik)).not.toContain('510000009');
  });

  it('says in one line that the database cannot be reached, without its password', async () => {
    const err: string[] = [];
    const code = await CLINIC_CLI.run(['clinic', 'list'], {
      open: () => openRoutingServices({ ...config, DATABASE_URL: 'postgresql://postgres:s3cret@127.0.0.1:1/bedrequest' }),
      out: () => undefined,
      err: (line) => err.push(line),
    });

    expect(code).toBe(1);
    expect(err).toEqual([expect.stringMatching(/^error: cannot open the database at 127\.0\.0\.1:1\/bedrequest: /)]);
    expect(err.join('')).not.toContain('s3cret');
  });

  it('switches automatic answers on and off, keeping them across a later upsert', async () => {
    await admin('clinic', 'upsert', '--ik', '510000021', '--name', 'Fachklinik Bergblick', '--departments', '3100');

    expect(await admin('clinic', 'auto-answer', '--ik', '510000021', '--enabled', 'true')).toEqual({
      code: 0,
      out: 'clinic 510000021: automatic answers enabled',
      err: '',
    });
    await admin('clinic', 'upsert', '--ik', '510000021', '--name', 'Fachklinik Bergblick', '--departments', '3100,8501');
    expect((await admin('clinic', 'list')).out).toContain('510000021  Fachklinik Bergblick  [3100, 8501]  automatic answers');

    expect((await admin('clinic', 'auto-answer', '--ik', '510000021', '--enabled', 'false')).out).toBe('clinic 510000021: automatic answers disabled');
    expect((await admin('clinic', 'list')).out).not.toContain('automatic answers');
  });

  it('sets a bed count, replaces it on a second call, and lists the counts by date', async () => {
    await admin('clinic', 'upsert', '--ik', '510000022', '--name', 'Rehazentrum Seeufer', '--departments', '2300,0200');

    const first = await admin('clinic', 'beds', '--ik', '510000022', '--department', '2300', '--date', '2036-12-01', '--free', '3');
    expect(first).toEqual({ code: 0, out: 'clinic 510000022: 2036-12-01 department 2300 (orthopedics): 3 free, 0 held, 0 reserved, 3 available', err: '' });
    await admin('clinic', 'beds', '--ik', '510000022', '--department', '2300', '--date', '2036-12-01', '--free', '2');
    await admin('clinic', 'beds', '--ik', '510000022', '--department', '0200', '--date', '2036-11-30', '--free', '0');

    expect((await admin('clinic', 'beds', '--ik', '510000022')).out.split('\n')).toEqual([
      '2036-11-30 department 0200 (geriatrics): 0 free, 0 held, 0 reserved, 0 available',
      '2036-12-01 department 2300 (orthopedics): 2 free, 0 held, 0 reserved, 2 available',
    ]);
    expect((await admin('clinic', 'beds', '--ik', '510000022', '--from', '2036-12-01')).out).not.toContain('2036-11-30');
  });

  it.each([
    [
      ['--ik', '510000022', '--department', '3100', '--date', '2036-12-01', '--free', '1'],
      'department must be a department key the clinic offers (2300, 0200)',
    ],
    [['--ik', '510000022', '--department', '2300', '--date', '2026-02-30', '--free', '1'], 'date must be a calendar date YYYY-MM-DD'],
    [['--ik', '510000022', '--department', '2300', '--date', '2036-12-01', '--free', 'many'], 'freeBeds must be a whole number from 0 to 10000'],
    [['--ik', '599999999', '--department', '2300', '--date', '2036-12-01', '--free', '1'], 'no participating clinic with IK 599999999'],
  ])('refuses the bed count %j with a one-line reason', async (...args) => {
    const [options, reason] = args;
    await admin('clinic', 'upsert', '--ik', '510000022', '--name', 'Rehazentrum Seeufer', '--departments', '2300,0200');

    const result = await admin('clinic', 'beds', ...options);

    expect(result.code).toBe(1);
    expect(result.err).toContain(reason);
  });

  it('refuses automatic answers for an unknown clinic or without a clear true or false', async () => {
    expect((await admin('clinic', 'auto-answer', '--ik', '599999999', '--enabled', 'true')).err).toBe('error: no participating clinic with IK 599999999');
    expect(await admin('clinic', 'auto-answer', '--ik', '510000021', '--enabled', 'yes')).toEqual({
      code: 2,
      out: '',
      err: 'error: --enabled must be true or false, got "yes"; see npm run admin -- clinic --help',
    });
  });

  it("shows a clinic's notification log (empty for a clinic not yet sent anything)", async () => {
    expect(await admin('clinic', 'notifications', '--ik', '510000022')).toEqual({ code: 0, out: '', err: '' });
    expect((await admin('clinic', 'notifications', '--ik', '510000022', '--limit', '0')).code).toBe(2);
  });
});
