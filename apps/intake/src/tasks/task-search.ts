import { BusinessStatus, TaskStatus } from '@bedrequest/contracts';
import { IK_NUMBER_SYSTEM, MAX_ISSUES, TASK_SEARCH_PARAMETERS, URI_IDENTIFIER_SYSTEM, type Issue, type TaskSearchParameterName } from '@bedrequest/fhir-model';
import { isJsonFormat, isTaskElement } from './result-parameters';
import { DATE_SYNTAX, parseDateCondition, type InstantRange } from './search-date';

/** Who asks: referrers see their own requests' Tasks, clinics the Tasks addressed to them (docs/decisions.md). */
export type Viewer = { role: 'referrer'; partyId: string } | { role: 'clinic'; ikNumbers: readonly string[] };

/** What a Task read may ask of the answer: `_elements` (and `_format`, which is always JSON). */
export interface TaskShape {
  /** The Task elements to answer beside the mandatory ones; absent: the whole Task. */
  elements?: string[];
}

/**
 * A parsed Task search: every condition given must hold (the parameters are ANDed); a list of codes
 * matches any of them. The viewer's visibility rule always applies on top.
 */
export interface TaskSearch extends TaskShape {
  viewer: Viewer;
  /** `based-on` and `based-on:identifier`: the ServiceRequest identifiers the Task must be based on. */
  requestIdentifiers: string[];
  /** `owner`: the clinic IK the Task must be addressed to. */
  ownerIk?: string;
  /** `business-status`: absent when not searched; a Task without business status never matches. */
  businessStatuses?: string[];
  statuses?: string[];
  /** `_lastUpdated`: the instants each condition admits (FHIR's precision-based date matching). */
  lastModified: InstantRange[];
  count: number;
  offset: number;
  /** `_total`: `none` neither counts nor answers a total (`estimate` is answered as `accurate`). */
  total: 'accurate' | 'none';
  /** `_summary=count`: the total alone, no entries. */
  summaryCount: boolean;
}

/** A query refused: 406 for a `_format` other than JSON, 400 for anything else. */
export interface QueryRefusal {
  ok: false;
  status: 400 | 406;
  issues: Issue[];
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;
/** Characters of a value or parameter name quoted in a diagnostic at most (as the bundle validation quotes input). */
const EXCERPT_LENGTH = 64;

/** Whether a search answers the total and the entries (`_summary=count` and `_count=0` ask for the total alone). */
export function answerParts(search: TaskSearch): { total: boolean; entries: boolean } {
  return { total: search.total !== 'none', entries: !search.summaryCount && search.count > 0 };
}

/**
 * Parses the Task search of docs/decisions.md: the search parameters declared in TASK_SEARCH_PARAMETERS
 * (`based-on`, also as `based-on:identifier=system|value`; `owner`, IK or `system|IK`;
 * `business-status`; `status`; `_lastUpdated`), the result parameters `_count`, `_total`,
 * `_summary=count`, `_elements` and `_format`, and `_offset` for the `next` links this service
 * writes. Any other parameter is an error (400) naming it, as docs/decisions.md asks.
 */
export function parseTaskSearch(query: Record<string, unknown>, viewer: Viewer): { ok: true; search: TaskSearch } | QueryRefusal {
  const search: TaskSearch = { viewer, requestIdentifiers: [], lastModified: [], count: DEFAULT_PAGE_SIZE, offset: 0, total: 'accurate', summaryCount: false };
  const refusal = readQuery(query, searchHandlerOf, search, SEARCH_PARAMETER_LIST);
  if (refusal) return refusal;
  if (search.summaryCount && search.total === 'none') {
    return {
      ok: false,
      status: 400,
      issues: [{ code: 'invalid', diagnostics: '_total: none contradicts _summary=count, which asks for the total alone', expression: '_total' }],
    };
  }
  return { ok: true, search };
}

/** Parses the query of a Task read: `_format` and `_elements` (http.html#parameters); anything else is 400. */
export function parseTaskRead(query: Record<string, unknown>): { ok: true; shape: TaskShape } | QueryRefusal {
  const shape: TaskShape = {};
  const refusal = readQuery(query, (name) => (name === '_elements' ? ELEMENTS : undefined), shape, '_format, _elements');
  if (refusal) return refusal;
  return { ok: true, shape };
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

/** Paging: `_count` (0 answers the total alone) and the `_offset` this service writes into `next` links. */
export function pagingParameters<T extends { count: number; offset: number }>(): Record<'_count' | '_offset', ParameterHandler<T>> {
  return {
    _count: {
      parse: (parameter, search) => {
        search.count = Number(parameter.single());
        if (!Number.isInteger(search.count) || search.count < 0 || search.count > MAX_PAGE_SIZE) {
          parameter.invalid(`expected an integer from 0 to ${MAX_PAGE_SIZE}`);
        }
      },
    },
    _offset: {
      parse: (parameter, search) => {
        search.offset = Number(parameter.single());
        // A safe integer: it goes to PostgreSQL's OFFSET as a bigint.
        if (!Number.isSafeInteger(search.offset) || search.offset < 0) parameter.invalid('expected a non-negative integer');
      },
    },
  };
}

/**
 * The search parameters, each with its parser. Keyed by the names of TASK_SEARCH_PARAMETERS, so
 * that the compiler refuses a declared parameter without a parser and a parser for an undeclared one.
 */
const SEARCH_PARAMETERS: Record<TaskSearchParameterName, ParameterHandler<TaskSearch>> = {
  'based-on': requestIdentifierParameter(),
  owner: {
    parse: (parameter, search) => {
      const [system, ik] = splitToken(parameter.single());
      if ((system !== undefined && system !== IK_NUMBER_SYSTEM) || !/^\d{9}$/.test(ik ?? '')) parameter.invalid('expected an IK number (9 digits)');
      search.ownerIk = ik ?? '';
    },
  },
  'business-status': {
    parse: (parameter, search) => {
      const codes = parameter
        .single()
        .split(',')
        .map((token) => splitToken(token)[1] ?? '');
      if (codes.some((code) => !BusinessStatus.safeParse(code).success)) parameter.invalid(`expected one of ${BusinessStatus.options.join(', ')}`);
      search.businessStatuses = codes;
    },
  },
  status: {
    parse: (parameter, search) => {
      const codes = parameter.single().split(',');
      if (codes.some((code) => !TaskStatus.safeParse(code).success)) parameter.invalid(`expected one of ${TaskStatus.options.join(', ')}`);
      search.statuses = codes;
    },
  },
  _lastUpdated: dateParameter((search) => search.lastModified),
};

const DECLARED = new Set<string>(TASK_SEARCH_PARAMETERS.map((parameter) => parameter.name));

function isSearchParameter(name: string): name is TaskSearchParameterName {
  return DECLARED.has(name);
}

/** `_elements` (search.html#elements): a comma-separated list of top-level Task elements. */
const ELEMENTS: ParameterHandler<TaskShape> = {
  parse: (parameter, shape) => {
    const names = parameter.single().split(',');
    const unknown = names.filter((name) => !isTaskElement(name));
    if (unknown.length) parameter.invalid(`not an element of Task: ${unknown.slice(0, 5).map(quoted).join(', ')}${unknown.length > 5 ? ', …' : ''}`);
    shape.elements = names;
  },
};

/** The result parameters of a search (search.html#return) and the `_offset` of this service's `next` links. */
const SEARCH_RESULT_PARAMETERS: Record<string, ParameterHandler<TaskSearch>> = {
  ...pagingParameters(),
  _total: {
    parse: (parameter, search) => {
      const value = parameter.single();
      if (value === 'none') search.total = 'none';
      else if (value !== 'accurate' && value !== 'estimate') parameter.invalid('expected none, estimate or accurate');
    },
  },
  _summary: {
    parse: (parameter, search) => {
      const value = parameter.single();
      if (value === 'count') search.summaryCount = true;
      // `false` is the whole resource; `data` leaves out the narrative, which Tasks here never have.
      else if (value !== 'false' && value !== 'data') {
        parameter.invalid('expected count, data or false (true and text are not supported; _elements selects elements)');
      }
    },
  },
  _elements: ELEMENTS,
};

const SEARCH_PARAMETER_LIST = [...DECLARED, ...Object.keys(SEARCH_RESULT_PARAMETERS), '_format'].join(', ');

function searchHandlerOf(name: string): ParameterHandler<TaskSearch> | undefined {
  if (isSearchParameter(name)) return SEARCH_PARAMETERS[name];
  return Object.hasOwn(SEARCH_RESULT_PARAMETERS, name) ? SEARCH_RESULT_PARAMETERS[name] : undefined;
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
  return { ok: false, status: 400, issues: bounded(issues) };
}

/** At most MAX_ISSUES issues (as the bundle validation answers), so that the answer stays small whatever the query. */
function bounded(issues: Issue[]): Issue[] {
  if (issues.length <= MAX_ISSUES) return issues;
  return [
    ...issues.slice(0, MAX_ISSUES),
    { severity: 'information', code: 'informational', diagnostics: `${issues.length - MAX_ISSUES} further issues are not listed` },
  ];
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
