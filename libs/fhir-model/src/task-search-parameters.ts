/**
 * The Task search of `GET /api/v2/fhir/Task` (docs/decisions.md, "Tasks"), declared once: intake parses
 * searches against it, and the gateway's CapabilityStatement lists it. A parameter missing here is
 * an unknown parameter (400).
 */

/** FHIR R4 search parameter types (the ones used here). */
export type SearchParameterType = 'reference' | 'token' | 'date' | 'number' | 'string';

export interface TaskSearchParameter {
  name: string;
  type: SearchParameterType;
  /** For CapabilityStatement.rest.resource.searchParam.definition, when FHIR defines it. */
  definition?: string;
  documentation: string;
}

export const TASK_SEARCH_PARAMETERS = [
  {
    name: 'based-on',
    type: 'reference',
    definition: 'http://hl7.org/fhir/SearchParameter/Task-based-on',
    documentation: 'The ServiceRequest identifier URI the Task is based on; also as based-on:identifier=urn:ietf:rfc:3986|<uri>. Repeatable (all must hold).',
  },
  {
    name: 'owner',
    type: 'reference',
    definition: 'http://hl7.org/fhir/SearchParameter/Task-owner',
    documentation: 'The IK number of the clinic the Task is addressed to (9 digits, optionally http://fhir.de/sid/arge-ik/iknr|<IK>).',
  },
  {
    name: 'business-status',
    type: 'token',
    definition: 'http://hl7.org/fhir/SearchParameter/Task-business-status',
    documentation: "The clinic's latest answer: accepted, declined, query, more-data-required; a comma-separated list matches any.",
  },
  {
    name: 'status',
    type: 'token',
    definition: 'http://hl7.org/fhir/SearchParameter/Task-status',
    documentation: 'The FHIR Task status; a comma-separated list matches any.',
  },
  {
    name: '_lastUpdated',
    type: 'date',
    definition: 'http://hl7.org/fhir/SearchParameter/Resource-lastUpdated',
    documentation:
      'meta.lastUpdated, with FHIR prefixes (eq, ne, gt, ge, lt, le, sa, eb) and precision-based matching: a date without a time is the whole day. Repeatable (all must hold).',
  },
  {
    name: 'overdue',
    type: 'token',
    documentation:
      'true: the Tasks marked overdue (waiting for their clinic past restriction.period.end, carrying the answer-overdue extension); false: all others. A parameter of this service (docs/api.md, "Answer deadlines").',
  },
] as const satisfies readonly TaskSearchParameter[];

export type TaskSearchParameterName = (typeof TASK_SEARCH_PARAMETERS)[number]['name'];
