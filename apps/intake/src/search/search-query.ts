import { MAX_ISSUES, URI_IDENTIFIER_SYSTEM, type Issue } from '@bedrequest/fhir-model';
import { DATE_SYNTAX, parseDateCondition, type InstantRange } from './search-date';

/**
 * How intake reads the query of a FHIR search or read (the Task search and read, the AuditEvent
 * search): each parameter by the handler its search names for it, every problem collected, and the
 * refusal answered as an OperationOutcome (docs/decisions.md, "Tasks": a parameter the search does
 * not know is 400).
 */

/** A query refused: 406 for a `_format` other than JSON, 400 for anything else. */
export interface QueryRefusal {
  ok: false;
  status: 400 | 406;
  issues: Issue[];
}

/** One parameter of the query string with all its values (it may be repeated), and where its problems go. */
export interface Parameter {
  modifier: string | undefined;
  values: string[];
  invalid(diagnostics: string): void;
  /** The parameter's value; a second one is an error. */
  single(): string;
}

export interface ParameterHandler<T> {
  /** The modifiers it takes (`based-on:identifier`); any other is an error. */
  modifiers?: readonly string[];
  parse(parameter: Parameter, into: T): void;
}

/** Characters of a value or parameter name quoted in a diagnostic at most (as the bundle validation quotes input). */
const EXCERPT_LENGTH = 64;

/** The `_format` values meaning JSON, the only format served (R4 http.html#mime-type). */
const JSON_FORMATS = new Set(['json', 'application/json', 'application/fhir+json']);

export function isJsonFormat(value: string): boolean {
  // A '+' that was not percent-encoded reaches the query as a space (application/x-www-form-urlencoded).
  return JSON_FORMATS.has(value.toLowerCase().replaceAll(' ', '+'));
}

/**
 * Reads every parameter of a query with the handler `handlerOf` names for it. A `_format` other
 * than JSON ends the reading: 406 Not Acceptable, whatever else is wrong (http.html#mime-type
 * names the formats, RFC 9110 §15.5.7 the status).
 */
export function readQuery<T>(
  query: Record<string, unknown>,
  handlerOf: (name: string) => ParameterHandler<T> | undefined,
  into: T,
  known: string,
): QueryRefusal | undefined {
  const issues: Issue[] = [];
  for (const [name, raw] of Object.entries(query)) {
    const values = (Array.isArray(raw) ? raw : [raw]).map(String);
    const invalid = (diagnostics: string) => issues.push({ code: 'invalid', diagnostics: `${excerpt(name)}: ${diagnostics}`, expression: excerpt(name) });
    const single = () => {
      if (values.length > 1) invalid('may be given once');
      return values[0] ?? '';
    };
    if (name === '_format') {
      const format = single();
      if (!isJsonFormat(format)) {
        const diagnostics = `_format: ${quoted(format)} is not served; this server answers JSON only (json, application/json, application/fhir+json)`;
        return { ok: false, status: 406, issues: [{ code: 'not-supported', diagnostics, expression: '_format' }] };
      }
      continue;
    }
    const colon = name.indexOf(':');
    const [base, modifier] = colon === -1 ? [name, undefined] : [name.slice(0, colon), name.slice(colon + 1)];
    const handler = handlerOf(base);
    if (!handler) invalid(`unknown parameter (known: ${known})`);
    else if (modifier !== undefined && !handler.modifiers?.includes(modifier)) invalid(`the modifier :${excerpt(modifier)} is not supported`);
    else handler.parse({ modifier, values, invalid, single }, into);
  }
  if (issues.length === 0) return undefined;
  return refusal(issues);
}

/** A 400 of these issues, at most MAX_ISSUES of them (as the bundle validation answers), so that the answer stays small whatever the query. */
export function refusal(issues: Issue[]): QueryRefusal {
  if (issues.length <= MAX_ISSUES) return { ok: false, status: 400, issues };
  return {
    ok: false,
    status: 400,
    issues: [
      ...issues.slice(0, MAX_ISSUES),
      { severity: 'information', code: 'informational', diagnostics: `${issues.length - MAX_ISSUES} further issues are not listed` },
    ],
  };
}

/** Searches whose results are based on ServiceRequest identifiers (Task `based-on`, AuditEvent `entity`). */
interface ByRequestIdentifier {
  requestIdentifiers: string[];
}

/** The ServiceRequest identifier URI, also in the token form `:identifier=urn:ietf:rfc:3986|<uri>`; repeatable (ANDed). */
export function requestIdentifierParameter<T extends ByRequestIdentifier>(): ParameterHandler<T> {
  return {
    modifiers: ['identifier'],
    parse: (parameter, search) => {
      for (const value of parameter.values) {
        if (parameter.modifier === undefined) {
          search.requestIdentifiers.push(value);
          continue;
        }
        const [system, identifier] = splitToken(value);
        if (system !== URI_IDENTIFIER_SYSTEM || !identifier) parameter.invalid(`expected ${URI_IDENTIFIER_SYSTEM}|<ServiceRequest identifier>`);
        search.requestIdentifiers.push(identifier ?? '');
      }
    },
  };
}

/** A date parameter with FHIR prefixes and precision-based matching, repeatable (ANDed): each condition goes to `conditionsOf(search)`. */
export function dateParameter<T>(conditionsOf: (search: T) => InstantRange[]): ParameterHandler<T> {
  return {
    parse: (parameter, search) => {
      for (const value of parameter.values) {
        const condition = parseDateCondition(value);
        if (condition) conditionsOf(search).push(condition);
        else parameter.invalid(`${quoted(value)} is not a date: expected ${DATE_SYNTAX}`);
      }
    },
  };
}

/** `system|value` → [system, value]; a bare `value` → [undefined, value]. */
export function splitToken(token: string): [string | undefined, string | undefined] {
  const bar = token.indexOf('|');
  return bar === -1 ? [undefined, token] : [token.slice(0, bar), token.slice(bar + 1)];
}

/** A value itself if short, else its first EXCERPT_LENGTH characters and its length: `abc…(3145728 characters)`. */
function excerpt(value: string): string {
  if (value.length <= EXCERPT_LENGTH) return value;
  // Never cut a surrogate pair in half.
  const code = value.charCodeAt(EXCERPT_LENGTH - 1);
  const cut = code >= 0xd800 && code <= 0xdbff ? EXCERPT_LENGTH - 1 : EXCERPT_LENGTH;
  return `${value.slice(0, cut)}…(${value.length} characters)`;
}

export function quoted(value: string): string {
  return `'${excerpt(value)}'`;
}
