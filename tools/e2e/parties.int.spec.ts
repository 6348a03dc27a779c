// Two people, one hospital (docs/parties.md): a referrer party and a clinic party of two people
// each, made with `party create` and `user create --party` on the real stack. Their tokens name the
// party in sub and the person in act; the requests and subscriptions belong to the party; the audit
// trail names the person who sent a version or answered, and only to that person's own party
// (docs/api.md, "Audit trail"); disabling one person ends their access tokens within about a second
// and leaves the other working, disabling the party ends everyone's, the clinic inbox's session too
// (docs/parties.md, "Disabling"). A clinic reads the hospital party's contact for the requests it
// was sent (docs/parties.md, "Contact").
import { randomUUID } from 'node:crypto';
import type { AuditEvent, Bundle, Task } from '@medplum/fhirtypes';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { passwordOf, startE2eStack, type E2eStack } from './e2e-stack';
import { HttpBrowser, csrfOf } from './inbox/http-browser';

const [A] = FIXTURE_PERFORMER_IKS as unknown as [string];

interface Claims {
  sub: string;
  act?: { sub: string; name?: string };
}
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Claims;

describe('two people, one hospital', () => {
  let stack: E2eStack;
  const suffix = randomUUID().slice(0, 8);
  const name = (person: string) => `${person}-${suffix}`;
  let hospital: string;
  let clinic: string;
  let maxSpareRefreshToken = '';
  /** Each person's login: access and refresh token. */
  const session: Record<string, { accessToken: string; refreshToken: string }> = {};
  /** Each person's user id, as `user list` prints it. */
  const userId: Record<string, string> = {};
  const token = (person: string) => session[person]!.accessToken;

  const tasksOf = async (identifier: string, person: string) =>
    (await stack.api<Bundle<Task>>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: token(person) })).body;
  const auditEventsOf = async (identifier: string, person: string) => {
    const answer = await stack.api<Bundle<AuditEvent>>('GET', `/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(identifier)}&_count=100`, {
      token: token(person),
    });
    expect(answer.status).toBe(200);
    return (answer.body.entry ?? []).map((entry) => entry.resource as AuditEvent);
  };
  const login = (username: string, password = passwordOf(username)) =>
    stack.api<{ accessToken: string; refreshToken: string }>('POST', '/api/v1/token/login', { body: { username, password } });
  const refresh = (refreshToken: string) =>
    stack.api<{ accessToken: string; refreshToken: string }>('POST', '/api/v1/token/refresh', { body: { refreshToken } });
  /** The status a referrer's token (subscriptions) or a clinic's (its list) is answered with. */
  const statusWith = async (accessToken: string) => {
    const { role } = JSON.parse(Buffer.from(accessToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { role: string };
    return (await stack.api('GET', role === 'clinic' ? '/api/v1/clinic/tasks' : '/api/v1/subscriptions', { token: accessToken })).status;
  };
  /**
   * Until `accessToken` is refused (401): the gateway reads auth's revocations every second, so this
   * takes about that; the bound only catches a hang. Never faster than 10 requests a second, well
   * within the party's rate limit.
   */
  const refusedSoon = (accessToken: string, who: string) =>
    waitFor(async () => (await statusWith(accessToken)) === 401, { timeoutMs: 10_000, intervalMs: 100, what: `${who}'s access token refused` });

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(A, 'Rehaklinik Am Waldsee', ['2300']);
    hospital = await stack.createParty('referrer', 'Klinikum Nord', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    clinic = await stack.createParty('clinic', 'Rehaklinik Am Waldsee', [A]);
    const people: [string, string, string][] = [
      ['erika', hospital, 'Erika Mustermann'],
      ['max', hospital, 'Max Meier'],
      ['jana', clinic, 'Jana Schulz'],
      ['tom', clinic, 'Tom Becker'],
    ];
    for (const [person, party, displayName] of people) {
      userId[person] = await stack.createPerson(party, name(person), displayName);
      session[person] = await stack.stack.login(name(person), passwordOf(name(person)));
    }
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("gives both people of the party tokens with the party's sub and their own act", () => {
    expect(claimsOf(token('erika'))).toMatchObject({ sub: hospital, act: { sub: userId.erika, name: 'Erika Mustermann' } });
    expect(claimsOf(token('max'))).toMatchObject({ sub: hospital, act: { sub: userId.max, name: 'Max Meier' } });
    expect(claimsOf(token('jana'))).toMatchObject({ sub: clinic, act: { sub: userId.jana, name: 'Jana Schulz' } });
    expect(claimsOf(token('tom'))).toMatchObject({ sub: clinic, act: { sub: userId.tom } });
    expect(new Set(Object.values(userId)).size).toBe(4);
  });

  it("shows one person's request and subscription to the other", async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const posted = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: token('erika'),
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A] }),
    });
    expect(posted.status).toBe(202);
    await waitFor(async () => ((await tasksOf(identifier, 'max')).total ?? 0) === 1, { what: "Erika's request in Max's Task search" });

    const created = await stack.api<{ id: string }>('POST', '/api/v1/subscriptions', {
      token: token('max'),
      body: { eventType: 'AdmissionResponse', callbackUrl: 'https://klinikum-nord.example/hooks/admission' },
    });
    expect(created.status).toBe(201);
    const listed = await stack.api<{ items: { id: string; callbackUrl: string }[] }>('GET', '/api/v1/subscriptions', { token: token('erika') });
    expect(listed.body.items).toEqual([expect.objectContaining({ id: created.body.id, callbackUrl: 'https://klinikum-nord.example/hooks/admission' })]);
  });

  it("shows the clinic whom to call about a request: the hospital party's name and contact, as the operator changes them", async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const posted = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: token('erika'),
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A] }),
    });
    expect(posted.status).toBe(202);
    const taskId = await waitFor(async () => (await tasksOf(identifier, 'jana')).entry?.[0]?.resource?.id, { what: "the clinic's Task" });
    const referrerOf = (person: string, task = taskId) => stack.api(`GET`, `/api/v1/clinic/tasks/${task}/referrer`, { token: token(person) });

    expect(await referrerOf('jana')).toMatchObject({ status: 200, body: { name: 'Klinikum Nord' } });
    expect(Object.keys((await referrerOf('jana')).body as object)).toEqual(['name']);
    await stack.admin('party', 'update', '--id', hospital, '--contact-name', 'Sozialdienst, Frau Kaiser', '--contact-phone', '+49 40 1234-567');
    const answer = await referrerOf('tom');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.body).toEqual({ name: 'Klinikum Nord', contactName: 'Sozialdienst, Frau Kaiser', contactPhone: '+49 40 1234-567' });

    // Another clinic's people, the referrer itself, and a Task that is none: no contact.
    const [, B] = FIXTURE_PERFORMER_IKS as unknown as [string, string];
    await stack.registerClinic(B, 'Rehazentrum Am Hang', ['2300']);
    await stack.createClinicUser(name('am-hang'), B);
    session.hang = await stack.stack.login(name('am-hang'), passwordOf(name('am-hang')));
    expect((await referrerOf('hang')).status).toBe(404);
    expect((await referrerOf('erika')).status).toBe(403);
    expect((await referrerOf('jana', randomUUID())).status).toBe(404);
  });

  it('names the person who sent a version or answered: to the referrer its own people, to the clinic its own', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = (notes: string[] = []) => admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A], notes });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: token('erika'), body: bundle() })).status).toBe(202);
    const taskId = await waitFor(async () => (await tasksOf(identifier, 'jana')).entry?.[0]?.resource?.id, { what: "the clinic's Task" });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: token('max'), body: bundle(['Röntgenbefund anbei']) })).status).toBe(202);
    expect((await stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: token('jana'), body: { businessStatus: 'accepted' } })).status).toBe(200);

    const changes = (events: AuditEvent[]) =>
      events
        .filter((event) => event.action === 'C' || event.action === 'U')
        .map((event) => ({
          action: event.action,
          ik: event.agent[0]?.who?.identifier?.value,
          altId: event.agent[0]?.altId,
          name: event.agent[0]?.name,
        }));
    const seenByReferrer = await waitFor(
      async () => {
        const events = changes(await auditEventsOf(identifier, 'erika'));
        return events.some((event) => event.altId === userId.max) && events.some((event) => event.ik === A) ? events : undefined;
      },
      { what: 'the changes in the audit trail' },
    );
    // Erika's request and Max's supplement, each named; the clinic's answer by its IK alone (the
    // supplement and the answer take separate paths, so their order is not fixed).
    expect(seenByReferrer).toHaveLength(3);
    expect(seenByReferrer).toEqual(
      expect.arrayContaining([
        { action: 'C', ik: FIXTURE_REQUESTER_IK, altId: userId.erika, name: 'Erika Mustermann' },
        { action: 'U', ik: FIXTURE_REQUESTER_IK, altId: userId.max, name: 'Max Meier' },
        { action: 'U', ik: A, altId: undefined, name: undefined },
      ]),
    );
    expect(JSON.stringify(await auditEventsOf(identifier, 'max'))).not.toContain('Jana Schulz');

    // The clinic's own people see who of them answered: Jana, also to her colleague Tom.
    expect(changes(await auditEventsOf(identifier, 'tom'))).toEqual([{ action: 'U', ik: A, altId: userId.jana, name: 'Jana Schulz' }]);
  });

  it("refuses a disabled person's refresh and login at once, and keeps the other person's working", async () => {
    expect(await statusWith(token('max'))).toBe(200);
    // A second session of Max's whose refresh token is not presented while he is disabled.
    const spare = await login(name('max'));
    expect(spare.status).toBe(200);
    maxSpareRefreshToken = spare.body.refreshToken;
    await stack.admin('user', 'disable', '--username', name('max'));

    expect((await refresh(session.max!.refreshToken)).status).toBe(401);
    expect((await login(name('max'))).status).toBe(401);
    const refreshed = await refresh(session.erika!.refreshToken);
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.accessToken)).toMatchObject({ sub: hospital, act: { sub: userId.erika } });
    expect((await login(name('erika'))).status).toBe(200);
  });

  it("refuses a disabled person's access token, valid a moment before, within about a second, and keeps the other person's", async () => {
    await refusedSoon(token('max'), 'Max');

    const refused = await stack.api<{ error: string; message: string }>('GET', '/api/v1/subscriptions', { token: token('max') });
    expect([refused.status, refused.body.message]).toEqual([401, 'the access token was revoked']);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await statusWith(token('erika'))).toBe(200);
  });

  it('does not bring the access token back when the person is enabled again, and lets the new login work', async () => {
    await stack.admin(
      'user',
      'upsert',
      '--role',
      'referrer',
      '--username',
      name('max'),
      '--password',
      passwordOf(name('max')),
      '--ik',
      FIXTURE_REQUESTER_IK,
      '--fhir-base',
      FIXTURE_FHIR_BASE,
    );

    // His sessions ended with the disable: a refresh token he did not use meanwhile stays refused.
    expect((await refresh(maxSpareRefreshToken)).status).toBe(401);
    const again = await login(name('max'));
    expect(again.status).toBe(200);
    expect(claimsOf(again.body.accessToken)).toMatchObject({ sub: hospital, act: { sub: userId.max } });
    expect(await statusWith(again.body.accessToken)).toBe(200);

    // A person of another party disabled after the enable: once the gateway refuses their token, it
    // has read a list written after the enable, and Max's old token is still refused by it.
    await stack.createReferrer(name('marker'), ['260000008'], 'https://marker-hospital.example/fhir');
    const marker = await stack.login(name('marker'));
    await stack.admin('user', 'disable', '--username', name('marker'));
    await refusedSoon(marker, 'the marker');
    expect(await statusWith(token('max'))).toBe(401);
    expect(await statusWith(again.body.accessToken)).toBe(200);
    session.max = again.body;
  });

  it("refuses every person's access token once their party is disabled, and ends the clinic inbox's session", async () => {
    const inbox = new HttpBrowser(stack.webUrl);
    const form = await inbox.get('/inbox/login');
    const loggedIn = await inbox.postForm('/inbox/login', { username: name('tom'), password: passwordOf(name('tom')), _csrf: csrfOf(form.text) });
    expect(loggedIn).toMatchObject({ status: 303, headers: { location: '/inbox/tasks' } });
    expect((await inbox.get('/inbox/tasks')).status).toBe(200);
    expect([await statusWith(token('jana')), await statusWith(token('tom'))]).toEqual([200, 200]);

    await stack.admin('party', 'disable', '--id', clinic);

    await refusedSoon(token('jana'), 'Jana');
    await refusedSoon(token('tom'), 'Tom');
    // The inbox's access token is refused like Tom's own: the session ends at its next page, its
    // access token still far from the renewal that would meet the refused refresh token.
    expect(await inbox.get('/inbox/tasks')).toMatchObject({ status: 303, headers: { location: '/inbox/login?expired=1' } });
    expect(inbox.cookie('inbox_session')).toBeUndefined();
    // The referrer's people are another party: untouched.
    expect(await statusWith(token('erika'))).toBe(200);
  });

  it('still makes a party of one with user create --role, whose sub is its only person', async () => {
    await stack.createReferrer(name('solo'), ['260000009'], 'https://solo-hospital.example/fhir');
    const claims = claimsOf(await stack.login(name('solo')));
    expect(claims.act?.sub).toBe(claims.sub);
    expect(claims.sub).not.toBe(hospital);
  });
});
