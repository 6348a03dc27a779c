import { z } from 'zod';

/**
 * The request form's error messages: each begins with the path of the field it is about
 * (`diagnoses[1].code`), so that the page can show it beside that field and a person reading it
 * alone still knows which field is meant. zod hands the error function the issue's full path.
 */

type PathKey = PropertyKey;

/** `['diagnoses', 1, 'code']` → `diagnoses[1].code`; the form itself is "the form". */
export function fieldPath(path: readonly PathKey[] | undefined): string {
  const text = (path ?? []).reduce<string>((written, key) => {
    if (typeof key === 'number') return `${written}[${key}]`;
    return written ? `${written}.${String(key)}` : String(key);
  }, '');
  return text || 'the form';
}

interface RawIssue {
  code?: string;
  path?: PathKey[];
  input?: unknown;
  keys?: string[];
}

/**
 * An error function saying `text` about the field: "is required" when it is missing, the unknown
 * names when an object has fields the form does not know, else `<path> <text>`.
 */
export function says(text: string) {
  return {
    error: (issue: RawIssue) => {
      const at = fieldPath(issue.path);
      if (issue.code === 'unrecognized_keys') return `${at} has fields the form does not know: ${(issue.keys ?? []).join(', ')}`;
      if (issue.input === undefined) return `${at} is required`;
      return `${at} ${text}`;
    },
  };
}

/**
 * C0 control characters other than tab and line breaks, DEL, and unpaired surrogates: the service
 * refuses U+0000 and unpaired surrogates (PostgreSQL cannot store them; docs/api.md, "Validation
 * choices"), and no one types the others into a form on purpose.
 */
// eslint-disable-next-line no-control-regex
const UNTYPEABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/;
const LINE_BREAK = /[\n\r\t]/;

/** Text a person types, trimmed: 1 to `max` characters, on one line unless `multiline`. */
export function typedText(max: number, { multiline = false }: { multiline?: boolean } = {}) {
  return z
    .string(says('must be text'))
    .trim()
    .min(1, says('must not be empty'))
    .max(max, says(`must be at most ${max} characters long`))
    .refine((text) => !UNTYPEABLE.test(text) && text.isWellFormed(), says('contains a character that cannot be stored (a control character)'))
    .refine((text) => multiline || !LINE_BREAK.test(text), says('must be on one line'));
}

/** The date of `now` in Germany (YYYY-MM-DD): the form's users and the dates they type are German. */
export function germanDate(now: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}
