import { z } from 'zod';
import { BusinessStatus, TaskStatus } from '@bedrequest/contracts';
import { IK_NUMBER_SYSTEM, TASK_SEARCH_PARAMETERS, type TaskSearchParameterName } from '@bedrequest/fhir-model';
import type { Viewer } from '../access';
import {
  CursorInstant,
  dateParameter,
  DEFAULT_PAGE_SIZE,
  Keyset,
  pagingConflict,
  pagingParameters,
  quoted,
  readQuery,
  refusal,
  requestIdentifierParameter,
  splitToken,
  type InstantRange,
  type Paging,
  type ParameterHandler,
  type QueryRefusal,
} from '../search';
import { isTaskElement } from './result-parameters';

/** A Task search's cursor: the last row's lastModified and id, the search's order (docs/api.md, "Tasks"). */
export type TaskKey = readonly [lastModified: string, id: string];
export const TASK_KEYS = new Keyset<TaskKey>(z.tuple([CursorInstant, z.guid()]));

/** What a Task read may ask of the answer: `_elements` (and `_format`, which is always JSON). */
export interface TaskShape {
  /** The Task elements to answer beside the mandatory ones; absent: the whole Task. */
  elements?: string[];
}

/**
 * A parsed Task search: every condition given must hold (the parameters are ANDed); a list of codes
 * matches any of them. The access policy always applies on top, for the viewer.
 */
export interface TaskSearch extends TaskShape, Paging<TaskKey> {
  viewer: Viewer;
  /** `based-on` and `based-on:identifier`: the ServiceRequest identifiers the Task must be based on. */
  requestIdentifiers: string[];
  /** `owner`: the clinic IK the Task must be addressed to. */
  ownerIk?: string;
  /** `business-status`: absent when not searched; a Task without business status never matches. */
  businessStatuses?: string[];
  statuses?: string[];
  /** `overdue`: true, the Tasks marked overdue; false, the others (docs/api.md, "Answer deadlines"). */
  overdue?: boolean;
  /** `_lastUpdated`: the instants each condition admits (FHIR's precision-based date matching). */
  lastModified: InstantRange[];
  /** `_total`: `none` neither counts nor answers a total (`estimate` is answered as `accurate`). */
  total: 'accurate' | 'none';
  /** `_summary=count`: the total alone, no entries. */
  summaryCount: boolean;
}

/** Whether a search answers the total and the entries (`_summary=count` and `_count=0` ask for the total alone). */
export function answerParts(search: TaskSearch): { total: boolean; entries: boolean } {
  return { total: search.total !== 'none', entries: !search.summaryCount && search.count > 0 };
}

/**
 * Parses the Task search of docs/decisions.md: the search parameters declared in TASK_SEARCH_PARAMETERS
 * (`based-on`, also as `based-on:identifier=system|value`; `owner`, IK or `system|IK`;
 * `business-status`; `status`; `_lastUpdated`), the result parameters `_count`, `_total`,
 * `_summary=count`, `_elements` and `_format`, and `_offset` and `_cursor` as the `next` links
 * this service writes them (search/paging.ts). Any other parameter is an error (400) naming it, as
 * docs/decisions.md asks.
 */
export function parseTaskSearch(query: Record<string, unknown>, viewer: Viewer): { ok: true; search: TaskSearch } | QueryRefusal {
  const search: TaskSearch = { viewer, requestIdentifiers: [], lastModified: [], count: DEFAULT_PAGE_SIZE, offset: 0, total: 'accurate', summaryCount: false };
  const refused = readQuery(query, searchHandlerOf, search, SEARCH_PARAMETER_LIST);
  if (refused) return refused;
  const conflict = pagingConflict(search);
  if (conflict) return refusal([conflict]);
  if (search.summaryCount && search.total === 'none') {
    return refusal([{ code: 'invalid', diagnostics: '_total: none contradicts _summary=count, which asks for the total alone', expression: '_total' }]);
  }
  return { ok: true, search };
}

/** Parses the query of a Task read: `_format` and `_elements` (http.html#parameters); anything else is 400. */
export function parseTaskRead(query: Record<string, unknown>): { ok: true; shape: TaskShape } | QueryRefusal {
  const shape: TaskShape = {};
  const refused = readQuery(query, (name) => (name === '_elements' ? ELEMENTS : undefined), shape, '_format, _elements');
  if (refused) return refused;
  return { ok: true, shape };
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
  overdue: {
    parse: (parameter, search) => {
      const value = parameter.single();
      if (value !== 'true' && value !== 'false') parameter.invalid('expected true or false');
      search.overdue = value === 'true';
    },
  },
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

/** The result parameters of a search (search.html#return) and the `_offset` and `_cursor` of this service's `next` links. */
const SEARCH_RESULT_PARAMETERS: Record<string, ParameterHandler<TaskSearch>> = {
  ...pagingParameters<TaskSearch, TaskKey>(TASK_KEYS, '_lastUpdated'),
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
