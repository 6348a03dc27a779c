import { AUDIT_EVENT_SEARCH_PARAMETERS } from '@bedrequest/fhir-model';
import { parseAuditSearch } from './audit-search';

const referrer = { role: 'referrer', partyId: 'referrer-1' } as const;
const IDENTIFIER = 'https://hospital.example/fhir/ServiceRequest/1';

describe('parseAuditSearch', () => {
  it('reads entity (bare and :identifier), date with prefixes, agent (user or IK, :identifier for an IK), _count and _offset', () => {
    const parsed = parseAuditSearch(
      {
        entity: IDENTIFIER,
        'entity:identifier': `urn:ietf:rfc:3986|${IDENTIFIER}`,
        date: ['ge2026-11-01', 'lt2026-12'],
        agent: 'clinic-user',
        'agent:identifier': 'http://fhir.de/sid/arge-ik/iknr|510000001',
        _count: '5',
        _offset: '10',
        _format: 'json',
      },
      referrer,
    );

    expect(parsed).toEqual({
      ok: true,
      search: {
        viewer: referrer,
        requestIdentifiers: [IDENTIFIER, IDENTIFIER],
        agents: [
          { value: 'clinic-user', ikOnly: false },
          { value: '510000001', ikOnly: true },
        ],
        recorded: [{ from: new Date('2026-11-01T00:00:00Z') }, { before: new Date('2026-12-01T00:00:00Z') }],
        count: 5,
        offset: 10,
        total: false,
      },
    });
  });

  it('refuses an unknown parameter, naming it and the known ones (400)', () => {
    expect(parseAuditSearch({ patient: 'Patient/1' }, referrer)).toEqual({
      ok: false,
      status: 400,
      issues: [
        {
          code: 'invalid',
          diagnostics: 'patient: unknown parameter (known: entity, date, agent, _count, _offset, _cursor, _total, _format)',
          expression: 'patient',
        },
      ],
    });
  });

  it.each([
    ['date', 'yesterday'],
    ['date', '2026-13-01'],
    ['entity:identifier', 'http://other|x'],
    ['agent:identifier', 'http://fhir.de/sid/arge-ik/iknr|12'],
    ['agent', ''],
    ['_count', '501'],
    ['_offset', '-1'],
    ['_offset', '10001'],
    ['_cursor', 'not-a-cursor'],
    ['_total', 'exact'],
    ['entity:missing', IDENTIFIER],
  ])('refuses %s=%j with 400 naming the parameter', (name, value) => {
    expect(parseAuditSearch({ [name]: value }, referrer)).toMatchObject({ ok: false, status: 400, issues: [{ code: 'invalid', expression: name }] });
  });

  it('answers a _format other than JSON with 406', () => {
    expect(parseAuditSearch({ _format: 'xml' }, referrer)).toMatchObject({ ok: false, status: 406 });
  });

  it('parses every parameter the CapabilityStatement declares', () => {
    for (const { name } of AUDIT_EVENT_SEARCH_PARAMETERS) {
      const value = name === 'date' ? '2026' : 'x';
      expect(parseAuditSearch({ [name]: value }, referrer)).toMatchObject({ ok: true });
    }
  });
});
