import type { z } from 'zod';
import type { Issue } from '@bedrequest/fhir-model';
import { errorCodes, type ErrorCode } from './error-codes';

export interface HttpErrorOptions {
  /** Sent as `Retry-After` (seconds). */
  retryAfterSeconds?: number;
  /** What failed underneath; logged (name and message), never sent. */
  cause?: unknown;
  /** Text for the log only, e.g. which store was unreachable; never sent. */
  detail?: string;
  /**
   * What was refused, one issue per element or field: a FHIR endpoint answers them as the
   * OperationOutcome's issues; their codes and expressions (never their diagnostics, which may quote
   * the input) are what the refusal's log line says.
   */
  issues?: readonly Issue[];
}

/** At most this many refused fields are named in one message: it stays short whatever was sent. */
const MAX_NAMED_FIELDS = 10;
/** A field name the caller made up (an unknown key) is quoted at most this long. */
const MAX_FIELD_NAME_LENGTH = 64;

/**
 * A failure with its answer: the code (errorCodes gives the status) and a message the caller may
 * read. Throw it from a route; jsonErrorHandler (or the gateway's FHIR handler) answers it.
 */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;
  readonly retryAfterSeconds: number | undefined;
  readonly detail: string | undefined;
  readonly issues: readonly Issue[] | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = errorCodes[code].status;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.detail = options.detail;
    this.issues = options.issues;
  }

  /**
   * What a caller sent (a JSON body, a query), read with `schema`: the parsed value, or 400
   * `invalid_request` whose message names every refused field, e.g. `note: must be at most 4000
   * characters; colour: not allowed` (`body` for the body as a whole), with one issue per field.
   * A message the schema gives a check is kept (write it without the field's name); zod's own
   * messages are replaced by a phrase. The message quotes no value the caller sent, and unknown
   * field names only shortened, so it stays small whatever the input.
   */
  static parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
    const result = schema.safeParse(input, { error: phraseOf });
    if (result.success) return result.data;
    const issues = result.error.issues.flatMap(fieldIssuesOf);
    const named = issues.slice(0, MAX_NAMED_FIELDS).map((issue) => `${issue.expression}: ${issue.diagnostics}`);
    if (issues.length > MAX_NAMED_FIELDS) named.push(`and ${issues.length - MAX_NAMED_FIELDS} more`);
    throw new HttpError('invalid_request', named.join('; '), { issues });
  }
}

/** One issue per refused field; an object's unknown keys are one zod issue, and one issue each here. */
function fieldIssuesOf(issue: z.core.$ZodIssue): Issue[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => ({ code: 'structure', diagnostics: 'not allowed', expression: fieldOf([...issue.path, shortened(key)]) }));
  }
  return [{ code: 'invalid', diagnostics: issue.message, expression: fieldOf(issue.path) }];
}

/** `items[0].note`; `body` for the input as a whole. */
function fieldOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'body';
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('');
}

function shortened(name: string): string {
  return name.length <= MAX_FIELD_NAME_LENGTH ? name : `${name.slice(0, MAX_FIELD_NAME_LENGTH)}…`;
}

const articles: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'an array',
};

/** zod's issues said without the field (the message puts it first) and without quoting the input. */
function phraseOf(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'is required' : `must be ${articles[issue.expected] ?? issue.expected}`;
    case 'invalid_value':
      return issue.input === undefined ? 'is required' : `must be one of ${issue.values.map(String).join(', ')}`;
    case 'too_big':
      return `must be ${issue.inclusive === false ? 'less than' : 'at most'} ${String(issue.maximum)}${unitOf(issue.origin)}`;
    case 'too_small':
      if (issue.origin === 'string' && issue.minimum === 1) return 'must not be empty';
      return `must be ${issue.inclusive === false ? 'more than' : 'at least'} ${String(issue.minimum)}${unitOf(issue.origin)}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has the wrong format' : `must be a valid ${issue.format}`;
    case 'unrecognized_keys':
      return 'not allowed';
    case 'invalid_union':
      return 'matches none of the allowed shapes';
    default:
      return undefined;
  }
}

function unitOf(origin: string): string {
  if (origin === 'string') return ' characters';
  if (origin === 'array' || origin === 'set') return ' items';
  return '';
}
