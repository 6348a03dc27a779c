import { MailRecipients, NotificationSettings } from '@bedrequest/contracts';
import { TEST_SERVICE_CLIENT_SECRET, login, startTestAuth, type TestAuth } from '../testing/auth-harness';

/**
 * E-mail per person (docs/operations.md, "E-mail"): each person turns it on or off for themself
 * (`/internal/party/users/me/notifications`, behind the gateway's `/api/v1/party`), the member list
 * shows it, and intake reads whom to write to from `/internal/mail-recipients` with a service token.
 * Against the real PostgreSQL and Redis, through the service's own port.
 */
describe("e-mail opt-in and recipients on auth's API", () => {
  let sut: TestAuth;
  let serviceToken: string;
  let address = 0;

  const tokenOf = async (username: string) => {
    address += 1;
    const answer = await login(sut.url, username, `${username}-password`, { 'x-forwarded-for': `198.51.100.${address}` });
    expect(answer.status).toBe(200);
    return answer.body.accessToken as string;
  };
  const settings = async (token: string, email?: boolean) => {
    const response = await fetch(`${sut.url}/internal/party/users/me/notifications`, {
      method: email === undefined ? 'GET' : 'PUT',
      headers: { authorization: `Bearer ${token}`, ...(email === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(email === undefined ? {} : { body: JSON.stringify({ email }) }),
    });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const recipients = async (query: string, token = serviceToken) => {
    const response = await fetch(`${sut.url}/internal/mail-recipients?${query}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const person = async (partyId: string, username: string, email: string | null, administrator = false) => {
    const member = await sut.addPartyUser({ partyId, username, password: `${username}-password`, displayName: username, administrator });
    if (email) await sut.prisma.userAccount.update({ where: { id: member.id }, data: { email } });
    return member;
  };

  beforeAll(async () => {
    sut = await startTestAuth();
    const answer = await fetch(`${sut.url}/internal/service-tokens`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`intake:${TEST_SERVICE_CLIENT_SECRET}`).toString('base64')}` },
    });
    serviceToken = ((await answer.json()) as { accessToken: string }).accessToken;
  });
  afterAll(() => sut.stop());

  it('lets a person turn e-mail on and off for themself, shown on the member list, off for a new person', async () => {
    const party = await sut.addParty({ role: 'referrer', name: 'Klinikum Mail', ikNumbers: ['260000041'], fhirBase: 'https://mail.example/fhir' });
    await person(party.id, 'mail-admin', 'admin@mail.example', true);
    await person(party.id, 'mail-max', 'max@mail.example');
    const [adminToken, maxToken] = [await tokenOf('mail-admin'), await tokenOf('mail-max')];

    expect(await settings(maxToken)).toEqual({ status: 200, body: { email: false, address: 'max@mail.example' } });
    const on = await settings(maxToken, true);
    const list = await fetch(`${sut.url}/internal/party/users`, { headers: { authorization: `Bearer ${adminToken}` } });
    const items = ((await list.json()) as { items: { username: string; emailNotifications: boolean }[] }).items;

    expect(on).toEqual({ status: 200, body: { email: true, address: 'max@mail.example' } });
    expect(NotificationSettings.parse(on.body)).toEqual(on.body);
    expect(items.map((item) => [item.username, item.emailNotifications])).toEqual([
      ['mail-admin', false],
      ['mail-max', true],
    ]);
    expect(await settings(maxToken, false)).toEqual({ status: 200, body: { email: false, address: 'max@mail.example' } });
    expect(await settings(maxToken)).toEqual({ status: 200, body: { email: false, address: 'max@mail.example' } });
  });

  it('refuses turning it on without an address (409), a body with more than the choice (400), and no token (401)', async () => {
    const party = await sut.addParty({ role: 'referrer', name: 'Klinikum Ohne', ikNumbers: ['260000042'], fhirBase: 'https://ohne.example/fhir' });
    await person(party.id, 'ohne-jana', null);
    const token = await tokenOf('ohne-jana');

    const refused = await settings(token, true);
    const extra = await fetch(`${sut.url}/internal/party/users/me/notifications`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: true, address: 'other@example.org' }),
    });
    const anonymous = await fetch(`${sut.url}/internal/party/users/me/notifications`);

    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toContain('email:');
    expect([extra.status, anonymous.status]).toEqual([400, 401]);
    expect(await settings(token)).toEqual({ status: 200, body: { email: false } });
  });

  it("answers the opted-in, enabled people's addresses of a party by id, and of a clinic by its IK number", async () => {
    const hospital = await sut.addParty({ role: 'referrer', name: 'Klinikum Empf', ikNumbers: ['260000043'], fhirBase: 'https://empf.example/fhir' });
    const clinic = await sut.addParty({ role: 'clinic', name: 'Reha Empf', ikNumbers: ['510000043'] });
    await person(hospital.id, 'empf-anna', 'anna@empf.example');
    await person(hospital.id, 'empf-bert', 'bert@empf.example');
    const gone = await person(hospital.id, 'empf-carl', 'carl@empf.example');
    await person(clinic.id, 'empf-dora', 'dora@reha.example');
    for (const username of ['empf-anna', 'empf-carl', 'empf-dora']) expect((await settings(await tokenOf(username), true)).status).toBe(200);
    await sut.prisma.userAccount.update({ where: { id: gone.id }, data: { disabledAt: new Date() } });

    const byParty = await recipients(`party=${hospital.id}`);
    const byIk = await recipients('ik=510000043');

    expect(byParty).toEqual({ status: 200, body: { addresses: ['anna@empf.example'] } });
    expect(MailRecipients.parse(byParty.body)).toEqual(byParty.body);
    expect(byIk).toEqual({ status: 200, body: { addresses: ['dora@reha.example'] } });
    // The hospital's IK names no clinic; an unknown party has nobody.
    expect(await recipients('ik=260000043')).toEqual({ status: 200, body: { addresses: [] } });
    expect(await recipients('party=00000000-0000-4000-8000-000000000000')).toEqual({ status: 200, body: { addresses: [] } });
    await sut.prisma.party.update({ where: { id: clinic.id }, data: { disabledAt: new Date() } });
    expect(await recipients('ik=510000043')).toEqual({ status: 200, body: { addresses: [] } });
  });

  it('is for services only, naming exactly one party', async () => {
    const party = await sut.addParty({ role: 'referrer', name: 'Klinikum Dienst', ikNumbers: ['260000044'], fhirBase: 'https://dienst.example/fhir' });
    await person(party.id, 'dienst-eva', 'eva@dienst.example');
    const personal = await tokenOf('dienst-eva');

    expect((await recipients(`party=${party.id}`, personal)).status).toBe(403);
    expect((await fetch(`${sut.url}/internal/mail-recipients?party=${party.id}`)).status).toBe(401);
    expect((await recipients(`party=${party.id}&ik=510000001`)).status).toBe(400);
    expect((await recipients('ik=12')).status).toBe(400);
    expect((await recipients('')).status).toBe(400);
  });
});
