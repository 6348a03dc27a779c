import { decodeJwt } from 'jose';
import { DisabledPartiesAnswer, RevocationListAnswer } from '@bedrequest/contracts';
import { PartyRepository } from '../parties/party.repository';
import { TEST_SERVICE_CLIENT_SECRET, clinicUser, login, startTestAuth, type TestAuth } from '../testing/auth-harness';
import { UserRepository } from '../users/user.repository';
import { REVOCATION_WINDOW_SECONDS } from './revocation.repository';

/**
 * `GET /internal/revocations` (docs/parties.md, "Disabling"): whom `user disable` and `party disable`
 * revoked the access tokens of, as the gateway reads it, against the real PostgreSQL. The disables
 * are the admin command line's (UserRepository, PartyRepository), which writes the database directly.
 */
describe('the revocation list of auth, against the real PostgreSQL', () => {
  let sut: TestAuth;
  let users: UserRepository;
  let parties: PartyRepository;
  let serviceToken: string;
  let address = 0;
  /** A client address of its own per login, so that no throttling of one test leaks into the next. */
  const from = () => {
    address += 1;
    return { 'x-forwarded-for': `198.18.${address >> 8}.${address & 255}` };
  };

  const revocations = (authorization?: string) => fetch(`${sut.url}/internal/revocations`, { headers: authorization ? { authorization } : {} });
  const list = async () => {
    const response = await revocations(`Bearer ${serviceToken}`);
    expect(response.status).toBe(200);
    return RevocationListAnswer.parse(await response.json());
  };
  const revokedAtOf = (subjects: { id: string; revokedAt: string }[], id: string) => subjects.find((subject) => subject.id === id)?.revokedAt;

  beforeAll(async () => {
    sut = await startTestAuth();
    users = new UserRepository(sut.prisma);
    parties = new PartyRepository(sut.prisma);
    const answer = await fetch(`${sut.url}/internal/service-tokens`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`gateway:${TEST_SERVICE_CLIENT_SECRET}`).toString('base64')}` },
    });
    serviceToken = ((await answer.json()) as { accessToken: string }).accessToken;
  });
  afterAll(() => sut.stop());

  /** A clinic party with two people. */
  const team = async (label: string) => {
    const party = await parties.create({ role: 'clinic', name: `Waldsee ${label}`, ikNumbers: ['510000001'] });
    const person = (n: number) =>
      sut.addPartyUser({ partyId: party.id, username: `${label}-${n}`, password: `${label}-password-${n}`, displayName: `Person ${n}` });
    return { party, first: await person(1), second: await person(2) };
  };

  it('lists a disabled person from the moment of the disable, and neither the other person nor the party', async () => {
    const { party, first, second } = await team('half');
    const at = new Date();

    expect(await users.disable(second.username, at)).toBe('disabled');

    const answer = await list();
    expect(revokedAtOf(answer.users, second.id)).toBe(at.toISOString());
    expect(revokedAtOf(answer.users, first.id)).toBeUndefined();
    expect(revokedAtOf(answer.parties, party.id)).toBeUndefined();
    expect(Math.abs(Date.parse(answer.asOf) - Date.now())).toBeLessThan(60_000);
  });

  it('lists a disabled party, whose people each stay as they were', async () => {
    const { party, first } = await team('closed');
    const at = new Date();

    expect(await parties.disable(party.id, at)).toBe('disabled');

    const answer = await list();
    expect(revokedAtOf(answer.parties, party.id)).toBe(at.toISOString());
    expect(revokedAtOf(answer.users, first.id)).toBeUndefined();
  });

  it('keeps a person listed when they are enabled again, and gives their next login a token issued after the revocation', async () => {
    const user = clinicUser('comeback', 'comeback-password-1');
    const member = await sut.addUser(user);
    const passwordHash = (await sut.prisma.userAccount.findUniqueOrThrow({ where: { id: member.id } })).passwordHash;
    // Disabled at the start of a second, and enabled again at once (`user upsert`): within that second.
    await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 5));
    const at = new Date();
    await users.disable(user.username, at);

    await users.upsert({ ...user, passwordHash });

    // Enabled only once the next second has begun, so that no token of the enabled person has the revoked second's iat.
    expect(Date.now()).toBeGreaterThanOrEqual(Math.floor(at.getTime() / 1_000) * 1_000 + 1_000);
    expect(revokedAtOf((await list()).users, member.id)).toBe(at.toISOString());
    const loggedIn = await login(sut.url, user.username, user.password, from());
    expect(loggedIn.status).toBe(200);
    // The gateway refuses a token issued (iat, whole seconds) at or before the revocation: this one is after it.
    expect(decodeJwt(loggedIn.body.accessToken as string).iat! * 1000).toBeGreaterThan(at.getTime());
  });

  it('leaves out revocations older than an access token can live', async () => {
    const { first, second } = await team('long-ago');
    const now = Date.now();
    await sut.prisma.userAccount.update({ where: { id: first.id }, data: { tokensRevokedAt: new Date(now - REVOCATION_WINDOW_SECONDS * 1000 - 60_000) } });
    await sut.prisma.userAccount.update({ where: { id: second.id }, data: { tokensRevokedAt: new Date(now - 3_600_000) } });

    const answer = await list();

    expect(revokedAtOf(answer.users, first.id)).toBeUndefined();
    expect(revokedAtOf(answer.users, second.id)).toBe(new Date(now - 3_600_000).toISOString());
  });

  it('lists every party disabled now, however long ago, and no enabled one (GET /internal/disabled-parties)', async () => {
    const { party: recent } = await team('disabled-now');
    const { party: longAgo } = await team('disabled-long-ago');
    const { party: enabled } = await team('never-disabled');
    const at = new Date();
    expect(await parties.disable(recent.id, at)).toBe('disabled');
    const then = new Date(Date.now() - REVOCATION_WINDOW_SECONDS * 1000 - 86_400_000);
    await sut.prisma.party.update({ where: { id: longAgo.id }, data: { disabledAt: then, tokensRevokedAt: then } });

    const response = await fetch(`${sut.url}/internal/disabled-parties`, { headers: { authorization: `Bearer ${serviceToken}` } });
    const answer = DisabledPartiesAnswer.parse(await response.json());

    expect(answer.parties).toEqual(
      expect.arrayContaining([
        { id: recent.id, disabledAt: at.toISOString() },
        { id: longAgo.id, disabledAt: then.toISOString() },
      ]),
    );
    expect(answer.parties.map((party) => party.id)).not.toContain(enabled.id);
    expect(revokedAtOf((await list()).parties, longAgo.id)).toBeUndefined();
    expect((await fetch(`${sut.url}/internal/disabled-parties`)).status).toBe(401);
  });

  it('answers only a service: 401 without a token, 403 for a party', async () => {
    const anonymous = await revocations();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);

    const user = clinicUser('curious', 'curious-password-1');
    await sut.addUser(user);
    const party = await login(sut.url, user.username, user.password, from());
    expect((await revocations(`Bearer ${String(party.body.accessToken)}`)).status).toBe(403);
    expect((await revocations('Bearer not-a-token')).status).toBe(401);
  });
});
