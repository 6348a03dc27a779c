import { parseArgs } from 'node:util';
import { UsageError, type Option } from './options';

/** 0 done; 1 the command failed (refused input, database down); 2 the command line was used wrongly. */
export const EXIT_CODE = { ok: 0, failure: 1, usage: 2 } as const;

export type Options = Readonly<Record<string, Option<unknown>>>;

/** What a command receives for its options: `{ ik: string; limit: number; from: string | undefined }`. */
export type OptionValues<O extends Options> = { readonly [Name in keyof O]: O[Name] extends Option<infer T> ? T : never };

export interface CommandContext<Services> {
  /** Opens what the commands work with (database, clients) on the first call; closed after the command. */
  services(): Promise<Services>;
  out(line: string): void;
  err(line: string): void;
  /** All of standard input, read on the first call (e.g. a password given with `--password-stdin`). */
  stdin(): Promise<string>;
}

export interface Command<Services, O extends Options = Options> {
  /** One line in the usage text: what the command does. */
  readonly summary: string;
  /** `--<name> <value>` options, in the order the usage text shows them. */
  readonly options: O;
  /** Resolves when done (exit code 0); throws to fail (exit code 1, or 2 for a UsageError). */
  run(values: OptionValues<O>, context: CommandContext<Services>): Promise<void>;
}

/** A command, with its option values typed from its options. */
export function command<Services, O extends Options>(definition: Command<Services, O>): Command<Services, O> {
  return definition;
}

/** What a command line has opened for its command, and how to close it again. */
export interface Session<Services> {
  readonly services: Services;
  close(): Promise<void>;
}

export interface CommandLineDefinition<Services> {
  /** How users start the program, up to the command group: `npm run admin --`. */
  readonly program: string;
  /** The command group, the first argument: `clinic` in `clinic upsert --ik ...`. */
  readonly group: string;
  /** The lines under the usage line: what the commands work on, what they read from the environment. */
  readonly summary: string;
  readonly commands: Readonly<Record<string, Command<Services>>>;
}

export interface CommandLineIo<Services> {
  /** Connects what the commands work with; called only once the command line has been understood. */
  open(): Promise<Session<Services>>;
  /** Standard output and standard error, one line a call; the console's by default. */
  out?(line: string): void;
  err?(line: string): void;
  /** Standard input, whole; the process's by default. */
  stdin?(): Promise<string>;
}

export type Invocation<Services> =
  { readonly kind: 'help' } | { readonly kind: 'command'; readonly command: Command<Services>; readonly values: OptionValues<Options> };

const HELP = new Set(['--help', '-h', 'help']);

/**
 * A command group (`clinic upsert|list|...`): reads `<group> <command> --<option> <value>...`, answers
 * `--help` with a usage text made from the commands' definitions, and runs the command between
 * opening and closing its services. Errors are one line on standard error; see EXIT_CODE.
 */
export class CommandLine<Services> {
  private readonly commands: ReadonlyMap<string, Command<Services>>;

  constructor(private readonly definition: CommandLineDefinition<Services>) {
    this.commands = new Map(Object.entries(definition.commands));
  }

  help(): string {
    const { program, group, summary } = this.definition;
    const lines = [`usage: ${program} ${group} <command> [options]`, summary, ''];
    for (const [name, command] of this.commands) {
      const options = Object.entries(command.options).map(([option, { placeholder, required, flag }]) =>
        flag ? `[--${option}]` : required ? `--${option} ${placeholder}` : `[--${option} ${placeholder}]`,
      );
      lines.push(`  ${[group, name, ...options].join(' ')}`, `      ${command.summary}`);
    }
    return lines.join('\n');
  }

  /** The command and its option values, or help; throws UsageError. */
  parse(argv: readonly string[]): Invocation<Services> {
    const [group, name, ...args] = argv;
    if (group !== undefined && HELP.has(group)) return { kind: 'help' };
    if (group !== undefined && group !== this.definition.group) throw new UsageError(`unknown command "${group}" (expected "${this.definition.group}")`);
    if (name === undefined) throw new UsageError(`missing command (expected one of ${this.commandNames()})`);
    if (HELP.has(name)) return { kind: 'help' };
    const command = this.commands.get(name);
    if (!command) throw new UsageError(`unknown command "${group} ${name}" (expected one of ${this.commandNames()})`);
    const given = readOptions(args, command.options, `${group} ${name}`);
    if (given === 'help') return { kind: 'help' };
    const values = Object.entries(command.options).map(([option, definition]) => [option, definition.read(given.get(option), `--${option}`)]);
    return { kind: 'command', command, values: Object.fromEntries(values) };
  }

  /** Runs the command `argv` names; resolves to the process's exit code. */
  async run(argv: readonly string[], io: CommandLineIo<Services>): Promise<number> {
    const out = (line: string) => (io.out ? io.out(line) : console.log(line));
    const err = (line: string) => (io.err ? io.err(line) : console.error(line));
    let session: Promise<Session<Services>> | undefined;
    try {
      const invocation = this.parse(argv);
      if (invocation.kind === 'help') {
        out(this.help());
        return EXIT_CODE.ok;
      }
      let input: Promise<string> | undefined;
      await invocation.command.run(invocation.values, {
        services: async () => (await (session ??= io.open())).services,
        out,
        err,
        stdin: () => (input ??= io.stdin ? io.stdin() : readStandardInput()),
      });
      return EXIT_CODE.ok;
    } catch (error) {
      if (error instanceof UsageError) {
        err(`error: ${oneLine(error)}; see ${this.definition.program} ${this.definition.group} --help`);
        return EXIT_CODE.usage;
      }
      err(`error: ${oneLine(error)}`);
      return EXIT_CODE.failure;
    } finally {
      // A session that failed to open has reported its error above and has nothing to close.
      await session?.then(
        (opened) => opened.close(),
        () => undefined,
      );
    }
  }

  private commandNames(): string {
    return [...this.commands.keys()].map((name) => `"${this.definition.group} ${name}"`).join(', ');
  }
}

/** The text of each `--option value` the command knows; `'help'` for --help. Throws UsageError. */
function readOptions(args: readonly string[], options: Options, command: string): Map<string, string> | 'help' {
  const known = Object.keys(options);
  const { tokens } = parseArgs({
    args: [...args],
    options: {
      ...Object.fromEntries(known.map((option) => [option, { type: options[option]?.flag ? ('boolean' as const) : ('string' as const) }])),
      help: { type: 'boolean', short: 'h' },
    },
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const takes = `${command} takes ${known.length === 0 ? 'no options' : known.map((option) => `--${option}`).join(', ')}`;
  const given = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind === 'option-terminator') continue;
    if (token.kind === 'positional') throw new UsageError(`unexpected argument "${token.value}" (${takes})`);
    if (token.name === 'help') return 'help';
    if (!known.includes(token.name)) throw new UsageError(`unknown option ${token.rawName} (${takes})`);
    if (options[token.name]?.flag) {
      if (token.inlineValue) throw new UsageError(`option ${token.rawName} takes no value`);
      given.set(token.name, '');
      continue;
    }
    if (token.value === undefined) throw new UsageError(`option ${token.rawName} needs a value`);
    // As node's strict parseArgs: `--ik --name x` is a forgotten value, not the IK "--name".
    if (!token.inlineValue && token.value.startsWith('-')) {
      throw new UsageError(`option ${token.rawName} needs a value (one that starts with "-" is written ${token.rawName}=<value>)`);
    }
    given.set(token.name, token.value);
  }
  return given;
}

async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function oneLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ').trim();
}
