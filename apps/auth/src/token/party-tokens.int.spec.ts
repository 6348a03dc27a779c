import { createLocalJWKSet, jwtVerify, type JSONWebKeySet } from 'jose';
import { login, refresh, startTestAuth, type TestAuth } from '../testing/auth-harness';

/**
 * A party with several people (docs/parties.md, "Tokens" and "Disabling"): each logs in with a
 * login of their own; the tokens name the party in `sub` and the person in `act`.
 */
describe('access and refresh tokens of a party with two people, against the real PostgreSQL and Redis', () => {
  let sut: TestAuth;
  let address = 0;
  /** A client address of its own per login, so that no throttling of one test leaks into the next. */
  const from = () => {
    address += 1;
    return { 'x-forwarded-for': `198.19.${address >> 8}.${address & 255}` };
  };
  const jwks = async () => (await (await fetch(`${sut.url}/internal/jwks`)).json()) as JSONWebKeySet;
  const claimsOf = async (accessToken: unknown) =>
    (await jwtVerify(accessToken as string, createLocalJWKSet(await jwks()), { issuer: 'urn:bedrequest:auth', audience: 'urn:bedrequest:api' })).payload;

  beforeAll(async () => {
    sut = await startTestAuth();
  });
  afterAll(() => sut.stop());

  /** A referrer party with the people `first` and `second`, both able to log in. */
  const teamOf = async (label: string) => {
    const party = await sut.addParty({
      role: 'referrer',
      name: `Klinikum ${label}`,
      ikNumbers: ['260000001', '260000002'],
      fhirBase: `https://${label}.example/fhir`,
    });
    const first = await sut.addPartyUser({ partyId: party.id, username: `${label}-1`, password: `${label}-password-1`, displayName: 'Erika Muster' });
    const second = await sut.addPartyUser({ partyId: party.id, username: `${label}-2`, password: `${label}-password-2`, displayName: 'Max Beispiel' });
    const loginOf = (n: 1 | 2) => login(sut.url, `${label}-${n}`, `${label}-password-${n}`, from());
    return { party, first, second, loginOf };
  };

  it("gives both people the party's `sub`, role, IK numbers and FHIR base, each with their own `act`", async () => {
    const { party, first, second, loginOf } = await teamOf('team');

    const [one, two] = [await loginOf(1), await loginOf(2)];

    expect([one.status, two.status]).toEqual([200, 200]);
    const partyClaims = { sub: party.id, role: 'referrer', ik: ['260000001', '260000002'], fhirBase: 'https://team.example/fhir' };
    expect(await claimsOf(one.body.accessToken)).toMatchObject({ ...partyClaims, act: { sub: first.id, name: 'Erika Muster' } });
    expect(await claimsOf(two.body.accessToken)).toMatchObject({ ...partyClaims, act: { sub: second.id, name: 'Max Beispiel' } });
    // A refreshed token names the same person.
    const renewed = await refresh(sut.url, two.body.refreshToken);
    expect(await claimsOf(renewed.body.accessToken)).toMatchObject({ sub: party.id, act: { sub: second.id } });
  });

  it('refuses login and refresh to both people once their party is disabled, as for a disabled user', async () => {
    const { party, loginOf } = await teamOf('closed');
    const refreshTokens = [(await loginOf(1)).body.refreshToken, (await loginOf(2)).body.refreshToken];

    await sut.prisma.party.update({ where: { id: party.id }, data: { disabledAt: new Date() } });

    for (const response of [await loginOf(1), await loginOf(2)]) {
      expect([response.status, response.body.error]).toEqual([401, 'invalid_credentials']);
    }
    for (const token of refreshTokens) {
      const response = await refresh(sut.url, token);
      expect([response.status, response.body.error]).toEqual([401, 'invalid_refresh_token']);
    }
  });

  it('refuses login and refresh to a disabled person, and leaves the other person of the party working', async () => {
    const { second, loginOf } = await teamOf('half');
    const [one, two] = [await loginOf(1), await loginOf(2)];

    await sut.prisma.userAccount.update({ where: { id: second.id }, data: { disabledAt: new Date() } });

    expect((await loginOf(2)).status).toBe(401);
    expect((await refresh(sut.url, two.body.refreshToken)).status).toBe(401);
    expect((await loginOf(1)).status).toBe(200);
    expect((await refresh(sut.url, one.body.refreshToken)).status).toBe(200);
  });
});
