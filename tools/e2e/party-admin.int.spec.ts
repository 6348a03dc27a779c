// The party administrator's API on the whole stack in-process (docs/api.md, "Party and people"):
// an administrator of a hospital, made with `user create --party --admin`, adds and disables the
// party's people through /api/v1/party; the gateway forwards to auth, which reads who may do it
// from its database at every call. Every answer is checked against the OpenAPI document (api-client.ts).
import { randomUUID } from 'node:crypto';
import type { Bundle, Task } from '@medplum/fhirtypes';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { passwordOf, startE2eStack, type E2eStack } from './e2e-stack';

const [A] = FIXTURE_PERFORMER_IKS as unknown as [string];

interface Person {
  id: string;
  username: string;
  displayName: string;
  email?: string;
  administrator: boolean;
  disabled: boolean;
  createdAt: string;
}
interface Session {
  accessToken: string;
  refreshToken: string;
}
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string; act?: { sub: string } };

describe("the party administrator's API, end to end", () => {
  let stack: E2eStack;
  const suffix = randomUUID().slice(0, 8);
  const name = (person: string) => `${person}-${suffix}`;
  let hospital: string;
  let west: string;
  const userId: Record<string, string> = {};
  const session: Record<string, Session> = {};
  const token = (person: string) => session[person]!.accessToken;

  const login = (username: string, password = passwordOf(username)) => stack.api<Session>('POST', '/api/v1/token/login', { body: { username, password } });
  const refresh = (refreshToken: string) => stack.api<Session>('POST', '/api/v1/token/refresh', { body: { refreshToken } });
  const peopleOf = async (person: string) => {
    const answer = await stack.api<{ items: Person[] }>('GET', '/api/v1/party/users', { token: token(person) });
    expect(answer.status).toBe(200);
    return answer.body.items;
  };
  const add = (person: string, body: unknown) =>
    stack.api<Person & { error?: string; message?: string }>('POST', '/api/v1/party/users', { token: token(person), body });
  const disable = (person: string, id: string) =>
    stack.api<Person & { error?: string; message?: string }>('POST', `/api/v1/party/users/${id}/disable`, { token: token(person) });
  /** `user create --party`, as administrator where `administrator`; the person's user id. */
  const createPerson = async (party: string, person: string, displayName: string, administrator = false) => {
    if (!administrator) return stack.createPerson(party, name(person), displayName);
    const out = await stack.admin(
      'user',
      'create',
      '--party',
      party,
      '--username',
      name(person),
      '--password',
      passwordOf(name(person)),
      '--display-name',
      displayName,
      '--admin',
    );
    return /\(id ([^)]+)\)/.exec(out)![1]!;
  };

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(A, 'Rehaklinik Am Waldsee', ['2300']);
    hospital = await stack.createParty('referrer', 'Klinikum Nord', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    west = await stack.createParty('referrer', 'Klinikum West', ['260000009'], 'https://klinikum-west.example/fhir');
    const people: [string, string, string, boolean][] = [
      ['erika', hospital, 'Erika Mustermann', true],
      ['max', hospital, 'Max Meier', false],
      ['wanda', west, 'Wanda West', true],
      ['tom', west, 'Tom Becker', false],
    ];
    for (const [person, party, displayName, administrator] of people) {
      userId[person] = await createPerson(party, person, displayName, administrator);
      session[person] = await stack.stack.login(name(person), passwordOf(name(person)));
    }
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("shows every person their party, and its administrator the party's people", async () => {
    for (const person of ['erika', 'max']) {
      const party = await stack.api('GET', '/api/v1/party', { token: token(person) });
      expect([party.status, party.body]).toEqual([
        200,
        { id: hospital, role: 'referrer', name: 'Klinikum Nord', ik: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE },
      ]);
    }
    expect((await peopleOf('erika')).map((person) => [person.id, person.displayName, person.administrator, person.disabled])).toEqual([
      [userId.erika, 'Erika Mustermann', true, false],
      [userId.max, 'Max Meier', false, false],
    ]);
  });

  it("lets the administrator add a colleague, who logs in as a person of the party and sees the party's requests", async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const posted = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: token('erika'),
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A] }),
    });
    expect(posted.status).toBe(202);

    const added = await add('erika', { username: name('lena'), password: passwordOf(name('lena')), displayName: 'Lena Koch', email: 'lena.koch@nord.example' });

    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      id: expect.any(String),
      username: name('lena'),
      displayName: 'Lena Koch',
      email: 'lena.koch@nord.example',
      // Off for everyone added: each person turns e-mail on for themself (docs/api.md, "Party and people").
      emailNotifications: false,
      administrator: false,
      disabled: false,
      createdAt: expect.any(String),
    });
    userId.lena = added.body.id;
    const lena = await login(name('lena'));
    expect(lena.status).toBe(200);
    session.lena = lena.body;
    expect(claimsOf(token('lena'))).toMatchObject({ sub: hospital, act: { sub: userId.lena } });
    const tasks = await waitFor(
      async () => {
        const search = await stack.api<Bundle<Task>>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: token('lena') });
        return (search.body.total ?? 0) > 0 ? search.body : undefined;
      },
      { what: "Erika's request in Lena's Task search" },
    );
    expect(tasks.entry?.[0]?.resource?.owner?.identifier?.value).toBe(A);
    expect((await peopleOf('erika')).map((person) => person.username)).toContain(name('lena'));
  });

  it('refuses a person who is not an administrator with 403', async () => {
    const refusal = { error: 'forbidden', message: 'only an administrator of the party manages its people' };

    expect(await stack.api('GET', '/api/v1/party/users', { token: token('max') })).toMatchObject({ status: 403, body: refusal });
    expect(await add('max', { username: name('maxs-friend'), password: passwordOf(name('maxs-friend')) })).toMatchObject({ status: 403, body: refusal });
    expect(await disable('max', userId.erika!)).toMatchObject({ status: 403, body: refusal });
    expect((await login(name('maxs-friend'))).status).toBe(401);
    expect((await login(name('erika'))).status).toBe(200);
  });

  it("keeps an administrator of another party out: only their own people listed, another party's people not found (404)", async () => {
    // By username: tom-… before wanda-….
    expect((await peopleOf('wanda')).map((person) => person.id)).toEqual([userId.tom, userId.wanda]);

    for (const id of [userId.max!, userId.erika!]) {
      expect(await disable('wanda', id)).toMatchObject({ status: 404, body: { error: 'not_found', message: 'no such user in your party' } });
    }
    expect((await login(name('max'))).status).toBe(200);
    expect((await peopleOf('erika')).every((person) => !person.disabled)).toBe(true);
  });

  it('refuses bad input with 400, a taken username with 409, and changes nothing', async () => {
    const before = await peopleOf('erika');
    const password = 'a-long-enough-password';

    const refused: [unknown, number, string][] = [
      [{ username: name('short'), password: 'too-short' }, 400, 'password: must be at least 12 characters'],
      [
        { username: `${name('bad')} name`, password },
        400,
        'username: must be 1-128 letters, digits, ".", "_", "@", "+" or "-", beginning with a letter or digit',
      ],
      [{ username: name('field'), password, role: 'clinic', partyId: west }, 400, 'role: not allowed; partyId: not allowed'],
      [{ username: name('max'), password, displayName: 'Someone Else' }, 409, 'username: is taken (usernames are unique across all parties)'],
      [{ username: name('tom').toUpperCase(), password }, 409, 'username: is taken (usernames are unique across all parties)'],
    ];
    for (const [body, status, message] of refused) {
      const answer = await add('erika', body);
      expect({ body, status: answer.status, answer: answer.body }).toEqual({
        body,
        status,
        answer: { error: status === 400 ? 'invalid_request' : 'conflict', message },
      });
    }

    expect(await peopleOf('erika')).toEqual(before);
    expect((await peopleOf('wanda')).map((person) => person.displayName).sort()).toEqual(['Tom Becker', 'Wanda West']);
    for (const username of [name('short'), name('field')]) expect((await login(username, password)).status).toBe(401);
    expect((await login(name('max'))).status).toBe(200);
  });

  it("disables a colleague: their login and refresh token are refused at once, the others' keep working", async () => {
    const paul = await add('erika', { username: name('paul'), password: passwordOf(name('paul')), displayName: 'Paul Wagner' });
    expect(paul.status).toBe(201);
    const paulsLogin = await login(name('paul'));
    expect(paulsLogin.status).toBe(200);

    const disabled = await disable('erika', paul.body.id);

    expect([disabled.status, disabled.body]).toEqual([200, { ...paul.body, disabled: true }]);
    expect((await login(name('paul'))).status).toBe(401);
    expect((await refresh(paulsLogin.body.refreshToken)).status).toBe(401);
    expect((await stack.api('GET', '/api/v1/party', { token: paulsLogin.body.accessToken })).status).toBe(401);
    expect((await refresh(session.max!.refreshToken)).status).toBe(200);
    expect((await peopleOf('erika')).find((person) => person.id === paul.body.id)?.disabled).toBe(true);
  });

  it('refuses an administrator disabling themself (409), so that the party keeps its administration', async () => {
    const answer = await disable('erika', userId.erika!);

    expect([answer.status, answer.body.error]).toEqual([409, 'conflict']);
    expect((await login(name('erika'))).status).toBe(200);
  });
});
