import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { run } from './cli';
import { openRoutingDatabase } from './persistence/database';

const env = testEnvironment();

describe('npm run admin -- clinic ... against the real PostgreSQL', () => {
  const config = { DATABASE_URL: env.databaseUrl, ROUTING_DB_SCHEMA: uniqueName('routing_cli'), DATABASE_POOL_SIZE: 2 };

  const admin = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await run(argv, { config, out: (line) => out.push(line), err: (line) => err.push(line) });
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

  it.each([
    [['clinic', 'upsert', '--ik', '51000001', '--name', 'X', '--departments', '2300'], 'malformed IK number "51000001"'],
    [['clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '2300,9999'], 'unknown department key "9999"'],
    [['clinic', 'upsert', '--ik', '510000009', '--departments', '2300'], 'missing option --name'],
    [['clinic', 'upsert', '--ik', '510000009', '--name', 'X'], 'missing option --departments'],
    [['clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '2300', '--colour', 'red'], "Unknown option '--colour'"],
    [['clinic', 'remove'], 'unknown command "clinic remove"'],
    [[], 'missing command'],
  ])('refuses %j with exit code 1 and a one-line reason', async (argv, reason) => {
    const result = await admin(...argv);

    expect(result.code).toBe(1);
    expect(result.out).toBe('');
    expect(result.err).toContain(reason);
    expect(result.err).not.toContain('\n');
  });

  it('stores nothing when the input is refused', async () => {
    await admin('clinic', 'upsert', '--ik', '510000009', '--name', 'X', '--departments', '9999');
    expect((await storedClinics()).map((clinic) => clinic.ik)).not.toContain('510000009');
  });

  it('says in one line that the database cannot be reached, without its password', async () => {
    const err: string[] = [];
    const code = await run(['clinic', 'list'], {
      config: { ...config, DATABASE_URL: 'postgresql://postgres:s3cret@127.0.0.1:1/bedrequest' },
      out: () => undefined,
      err: (line) => err.push(line),
    });

    expect(code).toBe(1);
    expect(err).toEqual([expect.stringMatching(/^error: cannot open the database at 127\.0\.0\.1:1\/bedrequest: /)]);
    expect(err.join('')).not.toContain('s3cret');
  });
});
