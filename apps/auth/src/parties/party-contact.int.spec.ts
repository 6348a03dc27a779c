import { ReferrerContact } from '@bedrequest/contracts';
import { TEST_SERVICE_CLIENT_SECRET, login, startTestAuth, type TestAuth } from '../testing/auth-harness';
import { PartyAdministration } from './party-admin.service';
import { PartyRepository } from './party.repository';

/**
 * `GET /internal/parties/{id}/contact` (docs/parties.md, "Contact"): a party's name and whom to call,
 * as `party create|update --contact-…` stored them, read by the stack's services alone, against the
 * real PostgreSQL.
 */
describe("a party's contact on auth's internal API", () => {
  let sut: TestAuth;
  let administration: PartyAdministration;
  let serviceToken: string;

  const contact = (id: string, token = serviceToken) => fetch(`${sut.url}/internal/parties/${id}/contact`, { headers: { authorization: `Bearer ${token}` } });

  beforeAll(async () => {
    sut = await startTestAuth();
    // Referrers only here: routing's registry, which a clinic's IK needs, is never asked.
    const noClinics = { isParticipatingClinic: () => Promise.resolve(false) };
    administration = new PartyAdministration({ parties: new PartyRepository(sut.prisma), clinics: noClinics, now: Date.now });
    const answer = await fetch(`${sut.url}/internal/service-tokens`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`gateway:${TEST_SERVICE_CLIENT_SECRET}`).toString('base64')}` },
    });
    serviceToken = ((await answer.json()) as { accessToken: string }).accessToken;
  });
  afterAll(() => sut.stop());

  it('answers the name, contact person, telephone and e-mail, and follows an update that removes one', async () => {
    const party = await administration.create({
      role: 'referrer',
      name: 'Klinikum Nord, Sozialdienst',
      ik: '260000031',
      fhirBase: 'https://contact-nord.example/fhir',
      contactName: '  Frau Kaiser ',
      contactPhone: '+49 40 1234-567',
      contactEmail: 'sozialdienst@nord.example',
    });

    const first = await contact(party.id);
    expect(first.status).toBe(200);
    expect(ReferrerContact.strict().parse(await first.json())).toEqual({
      name: 'Klinikum Nord, Sozialdienst',
      contactName: 'Frau Kaiser',
      contactPhone: '+49 40 1234-567',
      contactEmail: 'sozialdienst@nord.example',
    });

    await administration.update({ id: party.id, contactPhone: '(040) 7654 321', contactEmail: '' });
    expect(await (await contact(party.id)).json()).toEqual({
      name: 'Klinikum Nord, Sozialdienst',
      contactName: 'Frau Kaiser',
      contactPhone: '(040) 7654 321',
    });
  });

  it('refuses a telephone number that is none, and changes nothing', async () => {
    const party = await administration.create({ role: 'referrer', name: 'Klinikum Süd', ik: '260000032', fhirBase: 'https://contact-sued.example/fhir' });

    for (const phone of ['call us', '12', '+49 40 1234\n567', '0'.repeat(21)]) {
      await expect(administration.update({ id: party.id, contactPhone: phone })).rejects.toThrow(/bad --contact-phone/);
    }
    expect(await (await contact(party.id)).json()).toEqual({ name: 'Klinikum Süd' });
  });

  it('is for services alone: 401 without a token, 403 for a person’s, 404 for no such party', async () => {
    const party = await administration.create({ role: 'referrer', name: 'Klinikum Ost', ik: '260000033', fhirBase: 'https://contact-ost.example/fhir' });
    await sut.addPartyUser({ partyId: party.id, username: 'ost-person', password: 'ost-password-123', displayName: 'Ost' });
    const person = (await login(sut.url, 'ost-person', 'ost-password-123')).body as { accessToken: string };

    expect((await fetch(`${sut.url}/internal/parties/${party.id}/contact`)).status).toBe(401);
    expect((await contact(party.id, person.accessToken)).status).toBe(403);
    expect((await contact('00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await contact('not-a-uuid')).status).toBe(404);
  });
});
