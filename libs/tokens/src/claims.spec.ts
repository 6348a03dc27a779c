import { PartyClaims, principalOfClaims } from './claims';

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
