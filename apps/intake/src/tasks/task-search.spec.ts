import { IK_NUMBER_SYSTEM, URI_IDENTIFIER_SYSTEM } from '@bedrequest/fhir-model';
import { DEFAULT_PAGE_SIZE, parseTaskSearch, type Viewer } from './task-search';

const referrer: Viewer = { role: 'referrer', partyId: 'referrer-1' };
const identifier = 'https://hospital.example/fhir/ServiceRequest/1';

describe('parseTaskSearch (docs/api.md, "Tasks")', () => {
  it('takes based-on in both forms, owner with or without its system, and the defaults for paging', () => {
    const parsed = parseTaskSearch(
      { 'based-on': identifier, 'based-on:identifier': `${URI_IDENTIFIER_SYSTEM}|${identifier}`, owner: `${IK_NUMBER_SYSTEM}|510000001` },
      referrer,
    );

    expect(parsed).toEqual({
      ok: true,
      search: { viewer: referrer, requestIdentifiers: [identifier, identifier], ownerIk: '510000001', lastModified: [], count: DEFAULT_PAGE_SIZE, offset: 0 },
    });
  });

  it('takes comma-separated codes, _lastUpdated prefixes (repeatable), _count and _offset', () => {
    const parsed = parseTaskSearch(
      { status: 'requested,on-hold', 'business-status': 'query,accepted', _lastUpdated: ['ge2026-01-01', 'lt2026-02-01T10:00:00+01:00'], _count: '2', _offset: '4' },
      referrer,
    );

    expect(parsed).toMatchObject({
      ok: true,
      search: {
        statuses: ['requested', 'on-hold'],
        businessStatuses: ['query', 'accepted'],
        lastModified: [
          { comparator: 'ge', instant: new Date('2026-01-01T00:00:00Z') },
          { comparator: 'lt', instant: new Date('2026-02-01T09:00:00Z') },
        ],
        count: 2,
        offset: 4,
      },
    });
  });

  it('reads a _lastUpdated without prefix as eq', () => {
    expect(parseTaskSearch({ _lastUpdated: '2026-01-01T00:00:00Z' }, referrer)).toMatchObject({ ok: true, search: { lastModified: [{ comparator: 'eq' }] } });
  });

  it.each([
    [{ color: 'blue' }, 'color'],
    [{ 'based-on:identifier': identifier }, 'based-on:identifier'],
    [{ owner: '51000000' }, 'owner'],
    [{ owner: `urn:other|510000001` }, 'owner'],
    [{ status: 'requested,done' }, 'status'],
    [{ 'business-status': 'maybe' }, 'business-status'],
    [{ _lastUpdated: 'ne2026-01-01' }, '_lastUpdated'],
    [{ _count: '0' }, '_count'],
    [{ _count: '501' }, '_count'],
    [{ _offset: '-1' }, '_offset'],
    [{ _offset: '1e30' }, '_offset'],
    [{ 'based-on': [identifier, identifier] }, 'based-on'],
  ])('refuses %j with an issue on %s', (query, expression) => {
    const parsed = parseTaskSearch(query, referrer);

    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.issues).toEqual([expect.objectContaining({ code: 'invalid', expression })]);
  });
});
