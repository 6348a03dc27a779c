import { CommandLine, EXIT_CODE, command, type CommandContext } from './command-line';
import { UsageError, option } from './options';

/** A stand-in for what a real command line opens: a store of clinic names. */
class ClinicStore {
  readonly names = new Map<string, string>();
  closed = false;
}

type Context = CommandContext<ClinicStore>;

const sut = new CommandLine<ClinicStore>({
  program: 'npm run admin --',
  group: 'clinic',
  summary: 'Registers clinics.',
  commands: {
    upsert: command({
      summary: 'registers a clinic, or renames it',
      options: { ik: option.string('<IK>'), name: option.string('"<name>"'), beds: option.integer('<n>', { min: 0, max: 10 }).default(0) },
      async run({ ik, name, beds }, { services, out }: Context) {
        (await services()).names.set(ik, name);
        out(`clinic ${ik} "${name}" with ${beds} beds`);
      },
    }),
    list: command({
      summary: 'lists the clinics',
      options: { from: option.string('<IK>').optional() },
      async run({ from }, { services, out }: Context) {
        for (const [ik, name] of (await services()).names) if (from === undefined || ik >= from) out(`${ik} ${name}`);
      },
    }),
    remove: command({
      summary: 'removes a clinic',
      options: { ik: option.string('<IK>'), confirm: option.choice(['yes', 'no']) },
      async run({ ik, confirm }, { services }: Context) {
        if (confirm === 'no') throw new UsageError('--confirm no: nothing to do');
        if (!(await services()).names.delete(ik)) throw new Error(`no clinic with IK ${ik}`);
      },
    }),
  },
});

describe('CommandLine', () => {
  let store: ClinicStore;
  let opened: number;
  beforeEach(() => {
    store = new ClinicStore();
    opened = 0;
  });

  const admin = async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const open = async () => {
      opened += 1;
      return { services: store, close: async () => void (store.closed = true) };
    };
    const code = await sut.run(argv, { open, out: (line) => out.push(line), err: (line) => err.push(line) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it('runs the named command with its option values typed, between opening and closing its services', async () => {
    expect(await admin('clinic', 'upsert', '--ik', '510000001', '--name', 'Am Waldsee', '--beds=3')).toEqual({
      code: EXIT_CODE.ok,
      out: 'clinic 510000001 "Am Waldsee" with 3 beds',
      err: '',
    });
    expect(store.names.get('510000001')).toBe('Am Waldsee');
    expect(store.closed).toBe(true);
  });

  it('gives an option that is not given its default or undefined', async () => {
    expect((await admin('clinic', 'upsert', '--ik', '510000001', '--name', 'Am Waldsee')).out).toBe('clinic 510000001 "Am Waldsee" with 0 beds');
    store.names.set('510000002', 'Bergblick');
    expect((await admin('clinic', 'list')).out).toBe('510000001 Am Waldsee\n510000002 Bergblick');
  });

  it('prints the usage text, made from the command definitions, for --help, -h and help', async () => {
    const help = [
      'usage: npm run admin -- clinic <command> [options]',
      'Registers clinics.',
      '',
      '  clinic upsert --ik <IK> --name "<name>" [--beds <n>]',
      '      registers a clinic, or renames it',
      '  clinic list [--from <IK>]',
      '      lists the clinics',
      '  clinic remove --ik <IK> --confirm yes|no',
      '      removes a clinic',
    ].join('\n');

    for (const argv of [['--help'], ['clinic', '--help'], ['clinic', 'help'], ['clinic', '-h'], ['clinic', 'upsert', '--ik', '1', '--help']]) {
      expect(await admin(...argv)).toEqual({ code: EXIT_CODE.ok, out: help, err: '' });
    }
    expect(opened).toBe(0);
  });

  it.each([
    [[], 'missing command (expected one of "clinic upsert", "clinic list", "clinic remove")'],
    [['clinic'], 'missing command (expected one of "clinic upsert", "clinic list", "clinic remove")'],
    [['user', 'list'], 'unknown command "user" (expected "clinic")'],
    [['clinic', 'delete'], 'unknown command "clinic delete" (expected one of "clinic upsert", "clinic list", "clinic remove")'],
    [['clinic', 'upsert', '--ik', '510000001', '--colour', 'red'], 'unknown option --colour (clinic upsert takes --ik, --name, --beds)'],
    [['clinic', 'list', '-v'], 'unknown option -v (clinic list takes --from)'],
    [['clinic', 'upsert', '--ik', '510000001'], 'missing option --name'],
    [['clinic', 'upsert', '--ik', '510000001', '--name'], 'option --name needs a value'],
    [['clinic', 'upsert', '--ik', '--name', 'Am Waldsee'], 'option --ik needs a value (one that starts with "-" is written --ik=<value>)'],
    [['clinic', 'upsert', '--ik', '510000001', '--name', 'x', '--beds', '11'], '--beds must be a whole number from 0 to 10, got "11"'],
    [['clinic', 'list', '510000001'], 'unexpected argument "510000001" (clinic list takes --from)'],
    [['clinic', 'remove', '--ik', '510000001', '--confirm', 'no'], '--confirm no: nothing to do'],
  ])('refuses %j with exit code 2, a one-line reason and where to find the usage', async (argv, reason) => {
    const result = await admin(...argv);

    expect(result).toEqual({ code: EXIT_CODE.usage, out: '', err: `error: ${reason}; see npm run admin -- clinic --help` });
    expect(opened).toBe(0);
  });

  it('takes an option written with "=" for a value that starts with "-"', async () => {
    expect((await admin('clinic', 'upsert', '--ik=510000001', '--name=-Am Waldsee-')).out).toBe('clinic 510000001 "-Am Waldsee-" with 0 beds');
  });

  it('reports a failing command in one line with exit code 1, and still closes its services', async () => {
    expect(await admin('clinic', 'remove', '--ik', '599999999', '--confirm', 'yes')).toEqual({
      code: EXIT_CODE.failure,
      out: '',
      err: 'error: no clinic with IK 599999999',
    });
    expect(store.closed).toBe(true);
  });

  it('reports services that cannot be opened in one line with exit code 1', async () => {
    const err: string[] = [];
    const open = () => Promise.reject(new Error('cannot open the database\n  at 127.0.0.1:1'));

    expect(await sut.run(['clinic', 'list'], { open, out: () => undefined, err: (line) => err.push(line) })).toBe(EXIT_CODE.failure);
    expect(err).toEqual(['error: cannot open the database at 127.0.0.1:1']);
  });

  it('opens the services once however often a command asks for them', async () => {
    const twice = new CommandLine<ClinicStore>({
      program: 'test',
      group: 'clinic',
      summary: '',
      commands: {
        count: command({ summary: '', options: {}, run: async (_, context: Context) => void (await Promise.all([context.services(), context.services()])) }),
      },
    });
    const open = jest.fn(async () => ({ services: store, close: async () => undefined }));

    expect(await twice.run(['clinic', 'count'], { open, out: () => undefined, err: () => undefined })).toBe(EXIT_CODE.ok);
    expect(open).toHaveBeenCalledTimes(1);
  });
});
