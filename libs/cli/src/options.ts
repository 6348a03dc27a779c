/** The command line was used wrongly (unknown command or option, missing or malformed option): exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * One `--name <value>` option of a command: how the usage text shows its value, and how the given
 * text becomes the value the command receives. Built with `option.string`, `option.integer` or
 * `option.choice`; required unless made `.optional()` or given a `.default(...)`.
 */
export interface Option<T> {
  /** The value as the usage text shows it: `<IK>`, `YYYY-MM-DD`, `true|false`; none for a flag. */
  readonly placeholder: string;
  readonly required: boolean;
  /** A flag (`--password-stdin`) stands alone: it takes no value, and is `true` when given. */
  readonly flag?: boolean;
  /** The value of `flag` (`--ik`) from its text, `undefined` when it was not given; throws UsageError. */
  read(text: string | undefined, flag: string): T;
}

export interface RequiredOption<T> extends Option<T> {
  /** Not given: the command receives `undefined`. */
  optional(): Option<T | undefined>;
  /** Not given: the command receives `value`. */
  default(value: T): Option<T>;
}

function requiredOption<T>(placeholder: string, convert: (text: string, flag: string) => T): RequiredOption<T> {
  return {
    placeholder,
    required: true,
    // A blank value counts as missing: `--password ""` is as good as no password.
    read: (text, flag) => {
      if (text === undefined || text.trim() === '') throw new UsageError(`missing option ${flag}`);
      return convert(text, flag);
    },
    optional: () => ({ placeholder, required: false, read: (text, flag) => (text === undefined ? undefined : convert(text, flag)) }),
    default: (value) => ({ placeholder, required: false, read: (text, flag) => (text === undefined ? value : convert(text, flag)) }),
  };
}

/** `true or false`, `a, b, or c`. */
const ALTERNATIVES = new Intl.ListFormat('en', { type: 'disjunction' });

export const option = {
  /** `--name` alone: `true` when given, `false` when not. */
  flag: (): Option<boolean> => ({ placeholder: '', required: false, flag: true, read: (text) => text !== undefined }),

  /** Any text, passed on as given; the command (or its service) checks what it means. */
  string: (placeholder: string): RequiredOption<string> => requiredOption(placeholder, (text) => text),

  /** A whole number from `range.min` to `range.max`. */
  integer: (placeholder: string, range: { min: number; max: number }): RequiredOption<number> =>
    requiredOption(placeholder, (text, flag) => {
      const value = Number(text);
      if (!Number.isInteger(value) || value < range.min || value > range.max) {
        throw new UsageError(`${flag} must be a whole number from ${range.min} to ${range.max}, got "${text}"`);
      }
      return value;
    }),

  /** One of a closed list of words, shown as `a|b|c`. */
  choice: <const Choices extends readonly [string, ...string[]]>(choices: Choices): RequiredOption<Choices[number]> =>
    requiredOption(choices.join('|'), (text, flag) => {
      const choice = choices.find((candidate) => candidate === text);
      if (choice === undefined) throw new UsageError(`${flag} must be ${ALTERNATIVES.format(choices)}, got "${text}"`);
      return choice;
    }),
};
