import { AUDIT_EVENT_SEARCH_PARAMETERS, IK_NUMBER_SYSTEM, type AuditEventSearchParameterName } from '@bedrequest/fhir-model';
import type { InstantRange } from '../tasks/search-date';
import {
  dateParameter,
  DEFAULT_PAGE_SIZE,
  pagingParameters,
  readQuery,
  requestIdentifierParameter,
  splitToken,
  type ParameterHandler,
  type QueryRefusal,
  type Viewer,
} from '../tasks/task-search';

/**
 * A parsed AuditEvent search: every condition given must hold. The viewer's rule always applies on
 * top: a referrer sees the entries about its own requests, a clinic the entries of its own access.
 */
export interface AuditSearch {
  viewer: Viewer;
  /** `entity`: the ServiceRequest identifiers the entry must be about. */
  requestIdentifiers: string[];
  /** `agent`: each a user id or an IK the agent must have (`ik`: the IK alone, from `agent:identifier`). */
  agents: { value: string; ikOnly: boolean }[];
  /** `date`: the instants each condition admits for `recorded`. */
  recorded: InstantRange[];
  count: number;
  offset: number;
}

/** Keyed by the names of AUDIT_EVENT_SEARCH_PARAMETERS: a declared parameter without a parser does not compile. */
const SEARCH_PARAMETERS: Record<AuditEventSearchParameterName, ParameterHandler<AuditSearch>> = {
  entity: requestIdentifierParameter(),
  date: dateParameter((search) => search.recorded),
  agent: {
    modifiers: ['identifier'],
    parse: (parameter, search) => {
      for (const value of parameter.values) {
        if (parameter.modifier === undefined) {
          if (!value) parameter.invalid('expected a user id or an IK number');
          search.agents.push({ value, ikOnly: false });
          continue;
        }
        const [system, ik] = splitToken(value);
        if (system !== IK_NUMBER_SYSTEM || !/^\d{9}$/.test(ik ?? '')) parameter.invalid(`expected ${IK_NUMBER_SYSTEM}|<IK number (9 digits)>`);
        search.agents.push({ value: ik ?? '', ikOnly: true });
      }
    },
  },
};

const RESULT_PARAMETERS: Record<string, ParameterHandler<AuditSearch>> = pagingParameters();

const KNOWN = [...AUDIT_EVENT_SEARCH_PARAMETERS.map((parameter) => parameter.name), ...Object.keys(RESULT_PARAMETERS), '_format'].join(', ');

function handlerOf(name: string): ParameterHandler<AuditSearch> | undefined {
  if (Object.hasOwn(SEARCH_PARAMETERS, name)) return SEARCH_PARAMETERS[name as AuditEventSearchParameterName];
  return Object.hasOwn(RESULT_PARAMETERS, name) ? RESULT_PARAMETERS[name] : undefined;
}

/**
 * Parses `GET /api/v2/fhir/AuditEvent`: `entity`, `date`, `agent` (AUDIT_EVENT_SEARCH_PARAMETERS),
 * `_count`, `_format` (JSON only: 406 otherwise) and `_offset` for the `next` links. Any other
 * parameter is 400 naming it, as the Task search answers.
 */
export function parseAuditSearch(query: Record<string, unknown>, viewer: Viewer): { ok: true; search: AuditSearch } | QueryRefusal {
  const search: AuditSearch = { viewer, requestIdentifiers: [], agents: [], recorded: [], count: DEFAULT_PAGE_SIZE, offset: 0 };
  const refusal = readQuery(query, handlerOf, search, KNOWN);
  return refusal ?? { ok: true, search };
}
