import { IK_NUMBER_SYSTEM, URI_IDENTIFIER_SYSTEM, type Issue } from '@bedrequest/fhir-model';
import type { Prisma } from '../generated/prisma/client';

/** Who asks: referrers see their own requests' Tasks, clinics the Tasks addressed to them (decisions.md). */
export type Viewer = { role: 'referrer'; partyId: string } | { role: 'clinic'; ikNumbers: readonly string[] };

export interface TaskQuery {
  where: Prisma.ClinicTaskWhereInput;
  count: number;
  offset: number;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 500;

const TASK_STATUSES = ['requested', 'accepted', 'rejected', 'on-hold', 'cancelled', 'in-progress'];
const BUSINESS_STATUSES = ['accepted', 'declined', 'query', 'more-data-required'];
const DATE_PREFIXES = { eq: 'equals', gt: 'gt', ge: 'gte', lt: 'lt', le: 'lte' } as const;

/**
 * Parses the Task search of decisions.md: `based-on` (URI, or `based-on:identifier=system|value`),
 * `owner` (IK, optionally `system|IK`), `business-status`, `status`, `_lastUpdated` (FHIR prefixes,
 * repeatable), `_count`, and `_offset` for the `next` links this service writes. Any other
 * parameter is an error (400), as decisions.md asks.
 */
export function parseTaskSearch(query: Record<string, unknown>, viewer: Viewer): { ok: true; query: TaskQuery } | { ok: false; issues: Issue[] } {
  const issues: Issue[] = [];
  const filters: Prisma.ClinicTaskWhereInput[] = [visibility(viewer)];
  const invalid = (parameter: string, diagnostics: string) =>
    issues.push({ code: 'invalid', diagnostics: `${parameter}: ${diagnostics}`, expression: parameter });
  let count = DEFAULT_PAGE_SIZE;
  let offset = 0;

  for (const [parameter, raw] of Object.entries(query)) {
    const values = (Array.isArray(raw) ? raw : [raw]).map(String);
    const single = () => {
      if (values.length > 1) invalid(parameter, 'may be given once');
      return values[0] ?? '';
    };
    switch (parameter) {
      case 'based-on':
        filters.push({ request: { identifier: single() } });
        break;
      case 'based-on:identifier': {
        const [system, value] = splitToken(single());
        if (system !== URI_IDENTIFIER_SYSTEM || !value) invalid(parameter, `expected ${URI_IDENTIFIER_SYSTEM}|<ServiceRequest identifier>`);
        filters.push({ request: { identifier: value ?? '' } });
        break;
      }
      case 'owner': {
        const [system, value] = splitToken(single());
        if ((system !== undefined && system !== IK_NUMBER_SYSTEM) || !/^\d{9}$/.test(value ?? '')) invalid(parameter, 'expected an IK number (9 digits)');
        filters.push({ clinicIk: value ?? '' });
        break;
      }
      case 'business-status': {
        const codes = single().split(',').map((token) => splitToken(token)[1] ?? '');
        if (codes.some((code) => !BUSINESS_STATUSES.includes(code))) invalid(parameter, `expected one of ${BUSINESS_STATUSES.join(', ')}`);
        filters.push({ businessStatus: { in: codes } });
        break;
      }
      case 'status': {
        const codes = single().split(',');
        if (codes.some((code) => !TASK_STATUSES.includes(code))) invalid(parameter, `expected one of ${TASK_STATUSES.join(', ')}`);
        filters.push({ status: { in: codes } });
        break;
      }
      case '_lastUpdated':
        for (const value of values) {
          const match = /^(eq|gt|ge|lt|le)?(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2}))?)$/.exec(value);
          const instant = match ? new Date(match[2]!) : undefined;
          if (!match || !instant || Number.isNaN(instant.getTime())) {
            invalid(parameter, 'expected [eq|gt|ge|lt|le]<ISO date or dateTime with offset>');
            continue;
          }
          filters.push({ lastModified: { [DATE_PREFIXES[(match[1] ?? 'eq') as keyof typeof DATE_PREFIXES]]: instant } });
        }
        break;
      case '_count':
        count = Number(single());
        if (!Number.isInteger(count) || count < 1 || count > MAX_PAGE_SIZE) invalid(parameter, `expected an integer from 1 to ${MAX_PAGE_SIZE}`);
        break;
      case '_offset':
        offset = Number(single());
        if (!Number.isInteger(offset) || offset < 0) invalid(parameter, 'expected a non-negative integer');
        break;
      default:
        invalid(parameter, 'unknown search parameter');
    }
  }
  if (issues.length) return { ok: false, issues };
  return { ok: true, query: { where: { AND: filters }, count, offset } };
}

function visibility(viewer: Viewer): Prisma.ClinicTaskWhereInput {
  return viewer.role === 'referrer' ? { request: { referrerPartyId: viewer.partyId } } : { clinicIk: { in: [...viewer.ikNumbers] } };
}

/** `system|value` → [system, value]; a bare `value` → [undefined, value]. */
function splitToken(token: string): [string | undefined, string | undefined] {
  const bar = token.indexOf('|');
  return bar === -1 ? [undefined, token] : [token.slice(0, bar), token.slice(bar + 1)];
}
