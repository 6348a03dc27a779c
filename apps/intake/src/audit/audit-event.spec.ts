import { expectValidFhir } from '@bedrequest/testing';
import { auditColumnsOf, auditEntryOf, type AuditRecord } from './audit-event';

const ID = '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01';
const RECORDED = new Date('2026-11-22T10:00:00.123Z');
const REQUEST = { identifier: 'https://hospital.example/fhir/ServiceRequest/1', ownerPartyId: 'referrer-1' };
const TASK = { type: 'Task', id: '00000000-0000-4000-8000-000000000001' } as const;

describe('the AuditEvent of a record', () => {
  const records: [string, AuditRecord][] = [
    [
      'a clinic reading a bundle version',
      {
        interaction: 'vread',
        agent: { kind: 'clinic', user: 'u-1', ik: '510000001', address: '2001:db8::1' },
        request: { ...REQUEST, version: 2 },
        resources: [TASK],
        source: 'intake',
      },
    ],
    [
      'a referrer searching',
      {
        interaction: 'search-type',
        agent: { kind: 'referrer', user: 'referrer-1', ik: '260000001' },
        request: REQUEST,
        resources: [TASK],
        query: 'based-on=x&_count=5',
        source: 'intake',
      },
    ],
    [
      'a clinic reading documents',
      {
        interaction: 'read',
        agent: { kind: 'clinic', user: 'u-1', ik: '510000001' },
        request: REQUEST,
        resources: [TASK, { type: 'DocumentBundle', id: ID }],
        source: 'intake',
      },
    ],
    [
      'a referrer creating a request',
      {
        interaction: 'create',
        agent: { kind: 'referrer', user: 'referrer-1', ik: '260000001' },
        request: { ...REQUEST, version: 1, change: 'created' },
        source: 'intake',
      },
    ],
    [
      'a person of a clinic answering',
      {
        interaction: 'update',
        agent: { kind: 'clinic', user: 'clinic-a-anna', name: 'Anna Köhler', ik: '510000001', address: '198.51.100.2' },
        request: REQUEST,
        resources: [TASK],
        source: 'intake',
      },
    ],
    ['an automatic answer', { interaction: 'update', agent: { kind: 'service', service: 'routing' }, request: REQUEST, resources: [TASK], source: 'intake' }],
    [
      'an export at the command line',
      { interaction: 'vread', agent: { kind: 'administrator', user: 'root' }, request: { ...REQUEST, version: 3 }, source: 'intake admin CLI' },
    ],
  ];

  it.each(records)('is valid FHIR R4 for a validator outside the project: %s', (what, record) => {
    expectValidFhir(auditEntryOf(record, ID, RECORDED).resource, what);
  });

  it('says who did what, to which request, when, from where, with which outcome', () => {
    const { resource, ownerPartyId } = auditEntryOf(records[0]![1], ID, RECORDED);

    expect(ownerPartyId).toBe('referrer-1');
    expect(resource).toEqual({
      resourceType: 'AuditEvent',
      id: ID,
      type: { system: 'http://terminology.hl7.org/CodeSystem/audit-event-type', code: 'rest', display: 'RESTful Operation' },
      subtype: [{ system: 'http://hl7.org/fhir/restful-interaction', code: 'vread', display: 'vread' }],
      action: 'R',
      recorded: '2026-11-22T10:00:00.123Z',
      outcome: '0',
      agent: [
        {
          type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType', code: 'IRCP', display: 'information recipient' }] },
          role: [{ text: 'clinic' }],
          requestor: true,
          who: { type: 'Organization', identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '510000001' } },
          altId: 'u-1',
          network: { address: '2001:db8::1', type: '2' },
        },
      ],
      source: {
        site: 'bedrequest',
        observer: { display: 'intake' },
        type: [{ system: 'http://terminology.hl7.org/CodeSystem/security-source-type', code: '4', display: 'Application Server' }],
      },
      entity: [
        {
          what: { type: 'ServiceRequest', identifier: { system: 'urn:ietf:rfc:3986', value: REQUEST.identifier } },
          type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' },
          role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '4', display: 'Domain Resource' },
          detail: [{ type: 'version', valueString: '2' }],
        },
        {
          what: { reference: `Task/${TASK.id}` },
          type: { system: 'http://terminology.hl7.org/CodeSystem/audit-entity-type', code: '2', display: 'System Object' },
          role: { system: 'http://terminology.hl7.org/CodeSystem/object-role', code: '4', display: 'Domain Resource' },
        },
      ],
    });
  });

  it('names the person of the party who acted beside the organisation: altId their user id, name their display name', () => {
    const { resource } = auditEntryOf(records[4]![1], ID, RECORDED);

    expect(resource.agent[0]).toEqual({
      type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ParticipationType', code: 'AUT', display: 'author (originator)' }] },
      role: [{ text: 'clinic' }],
      requestor: true,
      who: { type: 'Organization', identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '510000001' } },
      altId: 'clinic-a-anna',
      name: 'Anna Köhler',
      network: { address: '198.51.100.2', type: '2' },
    });
    expect(auditColumnsOf({ ownerPartyId: 'referrer-1', resource })).toMatchObject({ agent_user: 'clinic-a-anna', agent_ik: '510000001' });
  });

  it("keeps of a display name only what the database's JSON can store, and no name when nothing is left", () => {
    const nameOf = (name: string) =>
      auditEntryOf({ ...records[4]![1], agent: { kind: 'clinic', user: 'u', name, ik: '510000001' } }, ID, RECORDED).resource.agent[0];

    // PostgreSQL's jsonb refuses \u0000 and a lone surrogate: the entry, and the change with it, could not be stored.
    expect(nameOf('Anna\u0000 K\u00f6hler\ud800')?.name).toBe('Anna K\u00f6hler\ufffd');
    expect(nameOf('\u0000\u0007')).not.toHaveProperty('name');
  });

  it('maps the interactions to R4 actions: reads R, searches E, creation C, changes U', () => {
    const actionOf = (interaction: AuditRecord['interaction']) => auditEntryOf({ ...records[0]![1], interaction }, ID, RECORDED).resource.action;
    expect(['read', 'vread', 'search-type', 'create', 'update', 'delete'].map((interaction) => actionOf(interaction as AuditRecord['interaction']))).toEqual([
      'R',
      'R',
      'E',
      'C',
      'U',
      'D',
    ]);
  });

  it('records a search query base64-encoded, as AuditEvent.entity.query is', () => {
    const query = auditEntryOf(records[1]![1], ID, RECORDED).resource.entity?.at(-1);
    expect(query).toMatchObject({ role: { code: '24', display: 'Query' }, query: Buffer.from('based-on=x&_count=5').toString('base64') });
  });

  it('gives the search columns: the request, its owner, the user and the IK; a service has neither', () => {
    expect(auditColumnsOf(auditEntryOf(records[0]![1], ID, RECORDED))).toEqual({
      id: ID,
      recorded: '2026-11-22T10:00:00.123Z',
      request_identifier: REQUEST.identifier,
      owner_party_id: 'referrer-1',
      agent_user: 'u-1',
      agent_ik: '510000001',
    });
    expect(auditColumnsOf(auditEntryOf(records[5]![1], ID, RECORDED))).toMatchObject({ agent_user: null, agent_ik: null });
  });
});
