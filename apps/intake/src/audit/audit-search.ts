import { z } from 'zod';
import { AUDIT_EVENT_SEARCH_PARAMETERS, IK_NUMBER_SYSTEM, type AuditEventSearchParameterName } from '@bedrequest/fhir-model';
import type { Viewer } from '../access';
import {
  CursorInstant,
  dateParameter,
  DEFAULT_PAGE_SIZE,
  Keyset,
  pagingConflict,
  pagingParameters,
  readQuery,
  refusal,
  requestIdentifierParameter,
  splitToken,
  type InstantRange,
  type Paging,
  type ParameterHandler,
  type QueryRefusal,
} from '../search';

/** An AuditEvent search's cursor: the last entry's `recorded`, `day` and `seq`, the search's order. */
export type AuditKey = readonly [recorded: string, day: string, seq: number];
export const AUDIT_KEYS = new Keyset<AuditKey>(z.tuple([CursorInstant, z.iso.date(), z.number().int().min(1)]));

/**
 * A parsed AuditEvent search: every condition given must hold. The access policy always applies on
 * top: a referrer sees the entries about its own requests, a clinic the entries of its own access.
 */
export interface AuditSearch extends Paging<AuditKey> {
  viewer: Viewer;
  /** `entity`: the ServiceRequest identifiers the entry must be about. */
  requestIdentifiers: string[];
  /** `agent`: each a user id or an IK the agent must have (`ik`: the IK alone, from `agent:identifier`). */
  agents: { value: string; ikOnly: boolean }[];
  /** `date`: the instants each condition admits for `recorded`. */
  recorded: InstantRange[];
  /**
   * `_total=accurate`: count every match. Counting reads all of a party's entries, millions in a
   * year of polling, so it is done only on request; `none` and `estimate` (the default) answer no total.
   */
  total: boolean;
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

const RESULT_PARAMETERS: Record<string, ParameterHandler<AuditSearch>> = {
  ...pagingParameters<AuditSearch, AuditKey>(AUDIT_KEYS, 'date'),
  _total: {
    parse: (parameter, search) => {
      const value = parameter.single();
      if (value === 'accurate') search.total = true;
      else if (value !== 'none' && value !== 'estimate') parameter.invalid('expected accurate, estimate or none');
    },
  },
};

const KNOWN = [...AUDIT_EVENT_SEARCH_PARAMETERS.map((parameter) => parameter.name), ...Object.keys(RESULT_PARAMETERS), '_format'].join(', ');

function handlerOf(name: string): ParameterHandler<AuditSearch> | undefined {
  if (Object.hasOwn(SEARCH_PARAMETERS, name)) return SEARCH_PARAMETERS[name as AuditEventSearchParameterName];
  return Object.hasOwn(RESULT_PARAMETERS, name) ? RESULT_PARAMETERS[name] : undefined;
}

/**
 * Parses `GET /api/v2/fhir/AuditEvent`: `entity`, `date`, `agent` (AUDIT_EVENT_SEARCH_PARAMETERS),
 * `_count`, `_total`, `_format` (JSON only: 406 otherwise) and `_offset` and `_cursor` as the `next`
 * links write them (search/paging.ts). Any other parameter is 400 naming it, as the Task search answers.
 */
export function parseAuditSearch(query: Record<string, unknown>, viewer: Viewer): { ok: true; search: AuditSearch } | QueryRefusal {
  const search: AuditSearch = { viewer, requestIdentifiers: [], agents: [], recorded: [], count: DEFAULT_PAGE_SIZE, offset: 0, total: false };
  const refused = readQuery(query, handlerOf, search, KNOWN);
  if (refused) return refused;
  const conflict = pagingConflict(search);
  return conflict ? refusal([conflict]) : { ok: true, search };
}
