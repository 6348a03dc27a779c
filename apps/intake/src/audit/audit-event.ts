import type { AuditEvent, AuditEventAgent, AuditEventEntity, Coding, Reference } from '@medplum/fhirtypes';
import { IK_NUMBER_SYSTEM, URI_IDENTIFIER_SYSTEM } from '@bedrequest/fhir-model';

/**
 * What the audit trail records: who (the agent), did what (the interaction), to which of a
 * request's resources, when, from where, with which outcome. The patient only by identifiers: never
 * a name, a diagnosis or any other content of the request. Staff by their user id and their display
 * name at the time (docs/data-protection.md, "Audit trail").
 */

/** The RESTful interaction (R4 restful-interaction) an entry records. */
export type AuditInteraction = 'read' | 'vread' | 'search-type' | 'create' | 'update' | 'delete';

/**
 * Who acted: a person of a party with their access token (`user` their user id, the token's
 * `act.sub`, `name` their display name; unknown for the changes its messages carry without it), an
 * administrator at the command line, or a service on a clinic's behalf.
 */
export type AuditAgent =
  | { kind: 'referrer' | 'clinic'; user?: string; name?: string; ik: string; address?: string }
  | { kind: 'administrator'; user: string; address?: string }
  | { kind: 'service'; service: string };

/**
 * A resource of the request the entry is about, beside the ServiceRequest itself, or a message of
 * it that an administrator replayed or discarded from a dead-letter queue (its AMQP message id and
 * routing key).
 */
export type AuditedResource = { type: 'Task'; id: string } | { type: 'DocumentBundle'; id: string } | { type: 'Message'; id: string; messageType?: string };

export interface AuditRecord {
  interaction: AuditInteraction;
  agent: AuditAgent;
  /**
   * The request: its ServiceRequest identifier, the referrer owning it, the version read or
   * written, if one, and for a new version how the request changed (created, supplemented,
   * selected, selection-withdrawn, revoked). The identifier is empty only for a message that names
   * no request (a dead letter that is not one of ours): the entry then has no ServiceRequest entity.
   */
  request: { identifier: string; ownerPartyId: string; version?: number; change?: string };
  resources?: readonly AuditedResource[];
  /** A search's query string (without `?`), recorded as the query entity. */
  query?: string;
  /** The service that records the entry: `intake`, `intake admin CLI`. */
  source: string;
}

/** One entry of the trail as it is hashed and stored: the AuditEvent and the owner of its request. */
export interface AuditEntry {
  ownerPartyId: string;
  resource: AuditEvent;
}

/** R4 AuditEvent.action: Read for reads, Execute for searches ("perform a query/search operation"). */
const ACTIONS = { read: 'R', vread: 'R', 'search-type': 'E', create: 'C', update: 'U', delete: 'D' } as const satisfies Record<
  AuditInteraction,
  AuditEvent['action']
>;

const REST: Coding = { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest', display: 'RESTful Operation' };
const RESTFUL_INTERACTION = 'http://hl7.org/fhir/restful-interaction';
/** R4 network-type: 2 = IP address. */
const IP_ADDRESS = '2';
const PARTICIPATION_TYPE = 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType';
const RECIPIENT: Coding = { system: PARTICIPATION_TYPE, code: 'IRCP', display: 'information recipient' };
const AUTHOR: Coding = { system: PARTICIPATION_TYPE, code: 'AUT', display: 'author (originator)' };
const APPLICATION_SERVER: Coding = { system: 'http://terminology.hl7.org/CodeSystem/security-source-type', code: '4', display: 'Application Server' };
const SYSTEM_OBJECT: Coding = { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' };
const OBJECT_ROLE = 'http://terminology.hl7.org/CodeSystem/object-role';
const DOMAIN_RESOURCE: Coding = { system: OBJECT_ROLE, code: '4', display: 'Domain Resource' };
const QUERY: Coding = { system: OBJECT_ROLE, code: '24', display: 'Query' };

/** The FHIR R4 AuditEvent of a record, with its id and time. Optional elements are left out, never `undefined`. */
export function auditEntryOf(record: AuditRecord, id: string, recorded: Date): AuditEntry {
  const reads = record.interaction === 'read' || record.interaction === 'vread' || record.interaction === 'search-type';
  const resource: AuditEvent = {
    resourceType: 'AuditEvent',
    id,
    type: REST,
    subtype: [{ system: RESTFUL_INTERACTION, code: record.interaction, display: record.interaction }],
    action: ACTIONS[record.interaction],
    recorded: recorded.toISOString(),
    outcome: '0',
    agent: [agentOf(record.agent, reads ? RECIPIENT : AUTHOR)],
    source: { site: 'bedrequest', observer: { display: record.source }, type: [APPLICATION_SERVER] },
    entity: [
      ...requestEntityOf(record.request),
      ...(record.resources ?? []).map(entityOf),
      ...(record.query === undefined ? [] : [{ type: SYSTEM_OBJECT, role: QUERY, query: Buffer.from(record.query, 'utf8').toString('base64') }]),
    ],
  };
  return { ownerPartyId: record.request.ownerPartyId, resource };
}

function agentOf(agent: AuditAgent, type: Coding): AuditEventAgent {
  const common = { type: { coding: [type] }, role: [{ text: agent.kind }], requestor: true };
  switch (agent.kind) {
    case 'referrer':
    case 'clinic':
      return {
        ...common,
        // The organisation the party acted for; altId is "a user identifier text string from
        // authentication system" (R4 AuditEvent.agent.altId): the person's user id, and name
        // "human-meaningful name for the agent": their display name.
        who: { type: 'Organization', identifier: { system: IK_NUMBER_SYSTEM, value: agent.ik } },
        ...(agent.user === undefined ? {} : { altId: agent.user }),
        ...nameOf(agent.name),
        ...networkOf(agent.address),
      };
    case 'administrator':
      return { ...common, who: { display: 'administrator' }, altId: agent.user, ...networkOf(agent.address) };
    case 'service':
      return { ...common, who: { display: agent.service } };
  }
}

/**
 * A display name as PostgreSQL's jsonb can store it: it refuses \u0000 and lone surrogates, and an
 * entry that cannot be stored would stop the change it records. Control characters go, a lone
 * surrogate becomes U+FFFD; a name left empty is none.
 */
function nameOf(name: string | undefined): Pick<AuditEventAgent, 'name'> {
  const storable = name
    ?.toWellFormed()
    .replace(/\p{Cc}/gu, '')
    .trim();
  return storable ? { name: storable } : {};
}

function networkOf(address: string | undefined): Pick<AuditEventAgent, 'network'> {
  return address ? { network: { address, type: IP_ADDRESS } } : {};
}

/** The ServiceRequest's entity; none for an entry about a message that names no request (identifier ''). */
function requestEntityOf(request: AuditRecord['request']): AuditEventEntity[] {
  if (request.identifier === '') return [];
  return [
    {
      what: { type: 'ServiceRequest', identifier: { system: URI_IDENTIFIER_SYSTEM, value: request.identifier } },
      type: SYSTEM_OBJECT,
      role: DOMAIN_RESOURCE,
      ...detailOf(request),
    },
  ];
}

function detailOf(request: AuditRecord['request']): Pick<AuditEventEntity, 'detail'> {
  const detail = [
    ...(request.version === undefined ? [] : [{ type: 'version', valueString: String(request.version) }]),
    ...(request.change === undefined ? [] : [{ type: 'change', valueString: request.change }]),
  ];
  return detail.length ? { detail } : {};
}

function entityOf(resource: AuditedResource): AuditEventEntity {
  if (resource.type === 'Message') {
    // A message is no FHIR resource: its id (a UUID, as our envelopes' ids are, or as it came) and its routing key.
    const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(resource.id);
    return {
      what: { identifier: uuid ? { system: URI_IDENTIFIER_SYSTEM, value: `urn:uuid:${resource.id}` } : { value: resource.id } },
      type: SYSTEM_OBJECT,
      ...(resource.messageType === undefined ? {} : { description: resource.messageType }),
    };
  }
  const what: Reference =
    resource.type === 'Task'
      ? { reference: `Task/${resource.id}` }
      : // A DocumentBundle has no URL of its own here: its stored id, as a URN.
        { type: 'Bundle', identifier: { system: URI_IDENTIFIER_SYSTEM, value: `urn:uuid:${resource.id}` } };
  return { what, type: SYSTEM_OBJECT, role: DOMAIN_RESOURCE };
}

/** The columns the search filters on, read from an entry: written with it, and checked against it by the verification. */
export interface AuditColumns {
  id: string;
  recorded: string;
  request_identifier: string;
  owner_party_id: string;
  agent_user: string | null;
  agent_ik: string | null;
}

export function auditColumnsOf(entry: AuditEntry): AuditColumns {
  const { resource } = entry;
  const agent = resource.agent[0];
  // The ServiceRequest's entity, first where there is one.
  const request = resource.entity?.find((entity) => entity.what?.type === 'ServiceRequest');
  const who = agent?.who?.identifier;
  return {
    id: resource.id ?? '',
    recorded: resource.recorded,
    request_identifier: request?.what?.identifier?.value ?? '',
    owner_party_id: entry.ownerPartyId,
    agent_user: agent?.altId ?? null,
    agent_ik: who?.system === IK_NUMBER_SYSTEM ? (who.value ?? null) : null,
  };
}
