import { PartyClaims, accessClaimsOf, principalOfClaims } from './claims';

describe('a party access token read as a Principal', () => {
  const referrer = { sub: 'party-1', role: 'referrer', ik: ['260000001'], fhirBase: 'https://h.example/fhir' };

  it('names the party by `sub` and the person acting for it by `act`', () => {
    const claims = PartyClaims.parse({ ...referrer, act: { sub: 'user-7', name: 'Erika Muster' } });
    expect(principalOfClaims(claims)).toEqual({
      partyId: 'party-1',
      userId: 'user-7',
      userName: 'Erika Muster',
      role: 'referrer',
      ikNumbers: ['260000001'],
      fhirBase: 'https://h.example/fhir',
    });
  });

  it("reads a token without `act` (an earlier auth's) as its party's only user, whose id the party took", () => {
    const principal = principalOfClaims(PartyClaims.parse({ sub: 'user-1', role: 'clinic', ik: ['510000001'] }));
    expect(principal).toEqual({ partyId: 'user-1', userId: 'user-1', role: 'clinic', ikNumbers: ['510000001'] });
  });

  it('refuses an `act` without a person', () => {
    expect(PartyClaims.safeParse({ ...referrer, act: { name: 'Erika Muster' } }).success).toBe(false);
    expect(PartyClaims.safeParse({ ...referrer, act: { sub: '' } }).success).toBe(false);
  });
});

describe('accessClaimsOf: the claims auth signs for a person of a party', () => {
  const person = { id: 'user-2', displayName: 'Erika Muster' };

  it("takes role, IK numbers and FHIR base from the party and `act` from the person; read back, the party is `sub`'s", () => {
    const party = { id: 'party-1', role: 'referrer' as const, ikNumbers: ['260000001', '260000002'], fhirBase: 'https://h.example/fhir' };
    const claims = accessClaimsOf(party, person);
    expect(claims).toEqual({
      role: 'referrer',
      ik: ['260000001', '260000002'],
      fhirBase: 'https://h.example/fhir',
      act: { sub: 'user-2', name: 'Erika Muster' },
    });
    expect(principalOfClaims(PartyClaims.parse({ sub: party.id, ...claims }))).toMatchObject({
      partyId: 'party-1',
      userId: 'user-2',
      userName: 'Erika Muster',
    });
  });

  it('gives a clinic no FHIR base', () => {
    expect(accessClaimsOf({ role: 'clinic', ikNumbers: ['510000001'] }, person)).toEqual({
      role: 'clinic',
      ik: ['510000001'],
      act: { sub: 'user-2', name: 'Erika Muster' },
    });
  });
});

describe("a system client's token read as a Principal", () => {
  it('carries the permissions of its scope claim and its client id; a person has neither', () => {
    const claims = PartyClaims.parse({
      sub: 'party-1',
      role: 'clinic',
      ik: ['510000001'],
      act: { sub: 'client:c-1', name: 'KIS Anbindung' },
      scope: 'system/Task.rs api:clinic',
      client_id: 'c-1',
    });
    const principal = principalOfClaims(claims);
    expect(principal.userId).toBe('client:c-1');
    expect(principal.clientId).toBe('c-1');
    expect([...(principal.scopes ?? [])]).toEqual(['Task.r', 'Task.s', 'api:clinic']);
    expect(principalOfClaims(PartyClaims.parse({ sub: 'p', role: 'clinic', ik: ['510000001'] })).scopes).toBeUndefined();
  });
});
