import type { TaskSearchParameter } from './task-search-parameters';

/**
 * The AuditEvent search of `GET /api/v2/fhir/AuditEvent` (docs/api.md, "Audit trail"), declared
 * once: intake parses searches against it, and the gateway's CapabilityStatement lists it. A
 * parameter missing here is an unknown parameter (400).
 */
export const AUDIT_EVENT_SEARCH_PARAMETERS = [
  {
    name: 'entity',
    type: 'reference',
    definition: 'http://hl7.org/fhir/SearchParameter/AuditEvent-entity',
    documentation: 'The ServiceRequest identifier URI the entry is about; also as entity:identifier=urn:ietf:rfc:3986|<uri>. Repeatable (all must hold).',
  },
  {
    name: 'date',
    type: 'date',
    definition: 'http://hl7.org/fhir/SearchParameter/AuditEvent-date',
    documentation:
      'AuditEvent.recorded, with FHIR prefixes (eq, ne, gt, ge, lt, le, sa, eb) and precision-based matching: a date without a time is the whole (UTC) day. Repeatable (all must hold).',
  },
  {
    name: 'agent',
    type: 'reference',
    definition: 'http://hl7.org/fhir/SearchParameter/AuditEvent-agent',
    documentation:
      "Who acted: a user id (the access token's sub, AuditEvent.agent.altId) or an IK number (agent.who); also as agent:identifier=http://fhir.de/sid/arge-ik/iknr|<IK>, which matches the IK only. Repeatable (all must hold).",
  },
] as const satisfies readonly TaskSearchParameter[];

export type AuditEventSearchParameterName = (typeof AUDIT_EVENT_SEARCH_PARAMETERS)[number]['name'];
