import { BusinessStatus, TaskStatus } from '@bedrequest/contracts';
import { IK_NUMBER_SYSTEM, URI_IDENTIFIER_SYSTEM, type Issue } from '@bedrequest/fhir-model';

/** Who asks: referrers see their own requests' Tasks, clinics the Tasks addressed to them (decisions.md). */
export type Viewer = { role: 'referrer'; partyId: string } | { role: 'clinic'; ikNumbers: readonly string[] };

/** A FHIR date prefix of `_lastUpdated` (docs/api.md, "Tasks"). */
export type DateComparator = 'eq' | 'gt' | 'ge' | 'lt' | 'le';

/**
 * A parsed Task search: every condition given must hold (the parameters are ANDed); a list of codes
 * matches any of them. The viewer's visibility rule always applies on top.
 */
export interface TaskSearch {
  viewer: Viewer;
  /** `based-on` and `based-on:identifier`: the ServiceRequest identifiers the Task must be based on. */
  requestIdentifiers: string[];
  /** `owner`: the clinic IK the Task must be addressed to. */
  ownerIk?: string;
  /** `business-status`: absent when not searched; a Task without business status never matches. */
  businessStatuses?: string[];
  statuses?: string[];
  lastModified: { comparator: DateComparator; instant: Date }[];
  count: number;
  offset: number;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

/**
 * Parses the Task search of decisions.md: `based-on` (URI, or `based-on:identifier=system|value`),
 * `owner` (IK, optionally `system|IK`), `business-status`, `status`, `_lastUpdated` (FHIR prefixes,
 * repeatable), `_count`, and `_offset` for the `next` links this service writes. Any other
 * parameter is an error (400), as decisions.md asks.
 */
export function parseTaskSearch(query: Record<string, unknown>, viewer: Viewer): { ok: true; search: TaskSearch } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  const search: TaskSearch = { viewer, requestIdentifiers: [], lastModified: [], count: DEFAULT_PAGE_SIZE, offset: 0 };
  const invalid = (parameter: string, diagnostics: string) =>
    issues.push({ code: 'invalid', diagnostics: `${parameter}: ${diagnostics}`, expression: parameter });

  for (const [parameter, raw] of Object.entries(query)) {
    const values = (Array.isArray(raw) ? raw : [raw]).map(String);
    const single = () => {
      if (values.length > 1) invalid(parameter, 'may be given once');
      return values[0] ?? '';
    };
    switch (parameter) {
      case 'based-on':
        search.requestIdentifiers.push(single());
        break;
      case 'based-on:identifier': {
        const [system, value] = splitToken(single());
        if (system !== URI_IDENTIFIER_SYSTEM || !value) invalid(parameter, `expected ${URI_IDENTIFIER_SYSTEM}|<ServiceRequest identifier>`);
        search.requestIdentifiers.push(value ?? '');
        break;
      }
      case 'owner': {
        const [system, value] = splitToken(single());
        if ((system !== undefined && system !== IK_NUMBER_SYSTEM) || !/^\d{9}$/.test(value ?? '')) invalid(parameter, 'expected an IK number (9 digits)');
        search.ownerIk = value ?? '';
        break;
      }
      case 'business-status': {
        const codes = single().split(',').map((token) => splitToken(token)[1] ?? '');
        if (codes.some((code) => !BusinessStatus.safeParse(code).success)) invalid(parameter, `expected one of ${BusinessStatus.options.join(', ')}`);
        search.businessStatuses = codes;
        break;
      }
      case 'status': {
        const codes = single().split(',');
        if (codes.some((code) => !TaskStatus.safeParse(code).success)) invalid(parameter, `expected one of ${TaskStatus.options.join(', ')}`);
        search.statuses = codes;
        break;
      }
      case '_lastUpdated':
        for (const value of values) {
          const match = /^(eq|gt|ge|lt|le)?(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?)$/.exec(value);
          const instant = match ? new Date(match[2] ?? '') : undefined;
          if (!match || !instant || Number.isNaN(instant.getTime())) {
            invalid(parameter, 'expected [eq|gt|ge|lt|le]<ISO date or dateTime with offset>');
            continue;
          }
          search.lastModified.push({ comparator: (match[1] ?? 'eq') as DateComparator, instant });
        }
        break;
      case '_count':
        search.count = Number(single());
        if (!Number.isInteger(search.count) || search.count < 1 || search.count > MAX_PAGE_SIZE) invalid(parameter, `expected an integer from 1 to ${MAX_PAGE_SIZE}`);
        break;
      case '_offset':
        search.offset = Number(single());
        // A safe integer: it goes to PostgreSQL's OFFSET as a bigint.
        if (!Number.isSafeInteger(search.offset) || search.offset < 0) invalid(parameter, 'expected a non-negative integer');
        break;
      default:
        invalid(parameter, 'unknown search parameter');
    }
  }
  if (issues.length) return { ok: false, issues };
  return { ok: true, search };
}

/** `system|value` → [system, value]; a bare `value` → [undefined, value]. */
function splitToken(token: string): [string | undefined, string | undefined] {
  const bar = token.indexOf('|');
  return bar === -1 ? [undefined, token] : [token.slice(0, bar), token.slice(bar + 1)];
}
