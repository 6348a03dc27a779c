import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hash, verify } from '@node-rs/argon2';
import express from 'express';
import type { JSONWebKeySet } from 'jose';
import { listen } from '@bedrequest/observability';
import { captureLogger, type CapturedLogger } from '@bedrequest/testing';
import { login, refresh, referrer, startTestAuth, TEST_SERVICE_CLIENT_SECRET, type TestAuth } from '../testing/auth-harness';
import { ownKeysVerifier } from '../keys/own-keys-verifier';
import { PasswordHasher, type Argon2 } from '../passwords/password-hasher';
import { partyMembersApi } from './party-members.router';

/**
 * The party administrator's API of auth (docs/parties.md, "Party administrators"), behind the
 * gateway's /api/v1/party: tokens from real logins, the people in the real PostgreSQL. The cases
 * call the API as partyMembersApi builds it, on a server of the test's with a captured log; one
 * case calls the service's own port, where start.ts mounts it.
 */
describe("auth's party administrator API (/internal/party), against the real PostgreSQL and Redis", () => {
  let sut: TestAuth;
  let server: Server;
  let api: string;
  let logs: CapturedLogger;
  let address = 0;
  /** A client address of its own per login, so that no throttling of one test leaks into the next. */
  const from = () => {
    address += 1;
    return { 'x-forwarded-for': `198.51.${address >> 8}.${address & 255}` };
  };
  const tokenOf = async (username: string, password = `${username}-password`) => {
    const answer = await login(sut.url, username, password, from());
    expect(answer.status).toBe(200);
    return { accessToken: answer.body.accessToken as string, refreshToken: answer.body.refreshToken as string };
  };
  const call = async (method: 'GET' | 'POST', path: string, token: string | undefined, body?: unknown, base = api) => {
    const response = await fetch(`${base}/internal/party${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { items?: Record<string, unknown>[] } };
  };
  let hashes = 0;
  const counting: Argon2 = {
    hash: (password, options) => {
      hashes += 1;
      return hash(password, options);
    },
    verify: (hashed, password) => verify(hashed, password),
  };
  const usernamesOf = async (partyId: string) =>
    (await sut.prisma.userAccount.findMany({ where: { partyId }, orderBy: { username: 'asc' } })).map((user) => user.username);

  beforeAll(async () => {
    sut = await startTestAuth();
    logs = captureLogger('info');
    const jwks = (await (await fetch(`${sut.url}/internal/jwks`)).json()) as JSONWebKeySet;
    const router = partyMembersApi({
      prisma: sut.prisma,
      verifier: ownKeysVerifier(jwks, { issuer: sut.config.AUTH_ISSUER, audience: sut.config.AUTH_AUDIENCE, now: Date.now }),
      passwords: await PasswordHasher.create(counting),
      now: Date.now,
      logger: logs.logger,
    });
    server = await listen(express().use('/internal/party', router), 0, '127.0.0.1');
    api = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await sut.stop();
  });

  /** A referrer party with an administrator (`<label>-admin`) and a colleague (`<label>-max`), both logged in. */
  const teamOf = async (label: string) => {
    const party = await sut.addParty({
      role: 'referrer',
      name: `Klinikum ${label}`,
      ikNumbers: ['260000001', '260000002'],
      fhirBase: `https://${label}.example/fhir`,
      contactEmail: `sozialdienst@${label}.example`,
    });
    const admin = await sut.addPartyUser({
      partyId: party.id,
      username: `${label}-admin`,
      password: `${label}-admin-password`,
      displayName: 'Erika Muster',
      administrator: true,
    });
    const max = await sut.addPartyUser({ partyId: party.id, username: `${label}-max`, password: `${label}-max-password`, displayName: 'Max Beispiel' });
    return { party, admin, max, adminToken: (await tokenOf(`${label}-admin`)).accessToken, maxToken: (await tokenOf(`${label}-max`)).accessToken };
  };

  it('is served on the service port, where the gateway calls it', async () => {
    const { party, maxToken } = await teamOf('mounted');

    const answer = await call('GET', '', maxToken, undefined, sut.url);

    expect([answer.status, answer.body.id]).toEqual([200, party.id]);
  });

  describe('GET /: the party', () => {
    it('answers any person of the party, administrator or not', async () => {
      const { party, adminToken, maxToken } = await teamOf('reads');
      const expected = {
        id: party.id,
        role: 'referrer',
        name: 'Klinikum reads',
        ik: ['260000001', '260000002'],
        fhirBase: 'https://reads.example/fhir',
        contactEmail: 'sozialdienst@reads.example',
      };

      for (const token of [adminToken, maxToken]) expect(await call('GET', '', token)).toEqual({ status: 200, body: expected });
    });

    it('answers a clinic without a FHIR base, and a party of one (its user is no administrator)', async () => {
      await sut.addUser({ ...referrer('solo-hospital'), password: 'solo-hospital-password' });
      const clinic = await sut.addParty({ role: 'clinic', name: 'Reha Waldsee', ikNumbers: ['510000001'] });
      await sut.addPartyUser({ partyId: clinic.id, username: 'waldsee-jana', password: 'waldsee-jana-password', displayName: 'Jana Schulz' });

      const clinicAnswer = await call('GET', '', (await tokenOf('waldsee-jana')).accessToken);
      const solo = await call('GET', '', (await tokenOf('solo-hospital')).accessToken);

      expect(clinicAnswer).toEqual({ status: 200, body: { id: clinic.id, role: 'clinic', name: 'Reha Waldsee', ik: ['510000001'] } });
      expect(solo.body).toMatchObject({ role: 'referrer', name: 'solo-hospital', fhirBase: 'https://demo-hospital.example/fhir' });
      expect((await call('GET', '/users', (await tokenOf('solo-hospital')).accessToken)).status).toBe(403);
    });
  });

  describe('who may call', () => {
    it('refuses without a valid party token: none, a malformed one, a service token (not for the parties’ audience), all 401', async () => {
      const service = await fetch(`${sut.url}/internal/service-tokens`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(`gateway:${TEST_SERVICE_CLIENT_SECRET}`).toString('base64')}` },
      });
      const serviceToken = ((await service.json()) as { accessToken: string }).accessToken;

      expect((await call('GET', '', undefined)).status).toBe(401);
      expect((await call('GET', '', 'not-a-token')).status).toBe(401);
      expect((await call('GET', '', serviceToken)).status).toBe(401);
    });

    it('refuses a person who is not an administrator with 403 on every people route, and changes nothing', async () => {
      const { party, admin, maxToken } = await teamOf('plain');

      const answers = [
        await call('GET', '/users', maxToken),
        await call('POST', '/users', maxToken, { username: 'plain-new', password: 'a-long-password-1' }),
        await call('POST', `/users/${admin.id}/disable`, maxToken),
      ];

      for (const answer of answers) {
        expect(answer).toEqual({ status: 403, body: { error: 'forbidden', message: 'only an administrator of the party manages its people' } });
      }
      expect(await usernamesOf(party.id)).toEqual(['plain-admin', 'plain-max']);
      expect((await login(sut.url, 'plain-admin', 'plain-admin-password', from())).status).toBe(200);
    });

    it('reads the administrator flag and the disabled state at each call, not from the token', async () => {
      const { party, admin, max, adminToken, maxToken } = await teamOf('live');
      expect((await call('GET', '/users', adminToken)).status).toBe(200);

      await sut.prisma.userAccount.update({ where: { id: admin.id }, data: { administrator: false } });
      await sut.prisma.userAccount.update({ where: { id: max.id }, data: { administrator: true } });
      expect((await call('GET', '/users', adminToken)).status).toBe(403);
      expect((await call('GET', '/users', maxToken)).status).toBe(200);

      await sut.prisma.userAccount.update({ where: { id: max.id }, data: { disabledAt: new Date() } });
      expect(await call('GET', '', maxToken)).toEqual({
        status: 401,
        body: { error: 'unauthorized', message: 'the person of this access token or their party is disabled; log in again' },
      });

      await sut.prisma.party.update({ where: { id: party.id }, data: { disabledAt: new Date() } });
      expect((await call('GET', '', adminToken)).status).toBe(401);
    });
  });

  describe("GET /users: the party's people", () => {
    it('lists every person of the party, disabled ones too, by username, without password hashes, and no one else', async () => {
      const { admin, max, adminToken } = await teamOf('list');
      await teamOf('other-list');
      await sut.prisma.userAccount.update({ where: { id: max.id }, data: { disabledAt: new Date(), email: 'max@list.example' } });

      const answer = await call('GET', '/users', adminToken);

      expect(answer).toEqual({
        status: 200,
        body: {
          items: [
            {
              id: admin.id,
              username: 'list-admin',
              displayName: 'Erika Muster',
              administrator: true,
              emailNotifications: false,
              disabled: false,
              createdAt: admin.createdAt.toISOString(),
            },
            {
              id: max.id,
              username: 'list-max',
              displayName: 'Max Beispiel',
              email: 'max@list.example',
              administrator: false,
              emailNotifications: false,
              disabled: true,
              createdAt: max.createdAt.toISOString(),
            },
          ],
        },
      });
    });
  });

  describe('POST /users: a person added', () => {
    it('adds a colleague who logs in as a person of the party, and logs who added whom by user id alone', async () => {
      const { party, admin, adminToken } = await teamOf('adds');

      const answer = await call('POST', '/users', adminToken, {
        username: 'Adds.Jana',
        password: 'a-long-password-1',
        displayName: ' Jana Schulz ',
        email: 'jana.schulz@adds.example',
      });

      expect(answer).toEqual({
        status: 201,
        body: {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          username: 'adds.jana',
          displayName: 'Jana Schulz',
          email: 'jana.schulz@adds.example',
          administrator: false,
          emailNotifications: false,
          disabled: false,
          createdAt: expect.any(String),
        },
      });
      const created = await sut.prisma.userAccount.findUniqueOrThrow({ where: { username: 'adds.jana' } });
      expect([created.partyId, created.id]).toEqual([party.id, answer.body.id]);
      expect(created.passwordHash).toMatch(/^\$argon2id\$/);
      const jana = await tokenOf('adds.jana', 'a-long-password-1');
      expect((await call('GET', '', jana.accessToken)).body.id).toBe(party.id);

      const line = logs
        .text()
        .split('\n')
        .find((entry) => entry.includes('party member created') && entry.includes(created.id));
      expect(JSON.parse(line ?? '{}')).toMatchObject({ partyId: party.id, userId: admin.id, targetUserId: created.id, administrator: false });
      for (const secret of ['a-long-password-1', 'Jana Schulz', 'jana.schulz@adds.example']) expect(logs.text()).not.toContain(secret);
    });

    it('adds another administrator, who then manages the people too', async () => {
      const { adminToken } = await teamOf('second');

      expect((await call('POST', '/users', adminToken, { username: 'second-deputy', password: 'a-long-password-2', administrator: true })).status).toBe(201);

      const deputy = await tokenOf('second-deputy', 'a-long-password-2');
      const listed = await call('GET', '/users', deputy.accessToken);
      expect(listed.body.items?.map((person) => [person.username, person.displayName, person.administrator])).toEqual([
        ['second-admin', 'Erika Muster', true],
        ['second-deputy', 'second-deputy', true],
        ['second-max', 'Max Beispiel', false],
      ]);
    });

    it.each([
      ['a password of 11 characters', { username: 'bad-short', password: 'x'.repeat(11) }, 'password: must be at least 12 characters'],
      ['a password of 257 characters', { username: 'bad-long', password: 'x'.repeat(257) }, 'password: must be at most 256 characters'],
      ['a username with a space', { username: 'bad name', password: 'a-long-password-1' }, expect.stringMatching(/^username: must be 1-128 letters/)],
      ['a username beginning with a dot', { username: '.bad', password: 'a-long-password-1' }, expect.stringMatching(/^username: /)],
      [
        'a display name of two lines',
        { username: 'bad-lines', password: 'a-long-password-1', displayName: 'A\nB' },
        'displayName: must be one line without control characters',
      ],
      [
        'a display name with NUL',
        { username: 'bad-nul', password: 'a-long-password-1', displayName: 'Max\u0000Evil' },
        'displayName: must be one line without control characters',
      ],
      [
        'a display name with a terminal escape',
        { username: 'bad-esc', password: 'a-long-password-1', displayName: 'Max\u001b[31m' },
        'displayName: must be one line without control characters',
      ],
      [
        'an e-mail address with NUL',
        { username: 'bad-mail-nul', password: 'a-long-password-1', email: 'a\u0000@b.example' },
        'email: must be an e-mail address',
      ],
      [
        'a display name of 201 characters',
        { username: 'bad-name', password: 'a-long-password-1', displayName: 'n'.repeat(201) },
        'displayName: must be at most 200 characters',
      ],
      ['a malformed e-mail address', { username: 'bad-mail', password: 'a-long-password-1', email: 'bad at example' }, 'email: must be an e-mail address'],
      ['an unknown field', { username: 'bad-field', password: 'a-long-password-1', partyId: 'x' }, 'partyId: not allowed'],
      ['administrator as a string', { username: 'bad-admin', password: 'a-long-password-1', administrator: 'true' }, 'administrator: must be true or false'],
      ['no body', undefined, 'body: is required'],
    ])('refuses %s with 400 naming the field, and stores nothing', async (_, body, message) => {
      const label = `bad-${address}`;
      const { party, adminToken } = await teamOf(label);

      const answer = await call('POST', '/users', adminToken, body);

      expect(answer).toEqual({ status: 400, body: { error: 'invalid_request', message } });
      expect(await usernamesOf(party.id)).toEqual([`${label}-admin`, `${label}-max`]);
    });

    it("refuses a taken username with 409, another party's too, and changes nothing", async () => {
      const { party, adminToken } = await teamOf('taken');
      await teamOf('elsewhere');

      hashes = 0;
      for (const username of ['taken-max', 'Elsewhere-Max']) {
        const answer = await call('POST', '/users', adminToken, { username, password: 'a-long-password-1', displayName: 'Someone Else' });
        expect(answer).toEqual({ status: 409, body: { error: 'conflict', message: 'username: is taken (usernames are unique across all parties)' } });
      }
      // Refused before the password is hashed: a taken name costs no Argon2 work (a new one does, once).
      expect(hashes).toBe(0);
      expect((await call('POST', '/users', adminToken, { username: 'taken-new', password: 'a-long-password-1' })).status).toBe(201);
      expect(hashes).toBe(1);
      await sut.prisma.userAccount.delete({ where: { username: 'taken-new' } });
      expect(await usernamesOf(party.id)).toEqual(['taken-admin', 'taken-max']);
      expect((await login(sut.url, 'elsewhere-max', 'elsewhere-max-password', from())).status).toBe(200);
      expect((await sut.prisma.userAccount.findUniqueOrThrow({ where: { username: 'elsewhere-max' } })).displayName).toBe('Max Beispiel');
    });
  });

  describe('POST /users/{id}/disable', () => {
    it('disables a colleague as user disable does: their login and refresh are refused at once, and the line names who did it', async () => {
      const { party, admin, max, adminToken } = await teamOf('off');
      const session = await tokenOf('off-max');

      const answer = await call('POST', `/users/${max.id}/disable`, adminToken);

      expect(answer).toEqual({
        status: 200,
        body: {
          id: max.id,
          username: 'off-max',
          displayName: 'Max Beispiel',
          administrator: false,
          emailNotifications: false,
          disabled: true,
          createdAt: max.createdAt.toISOString(),
        },
      });
      expect((await login(sut.url, 'off-max', 'off-max-password', from())).status).toBe(401);
      expect((await refresh(sut.url, session.refreshToken)).status).toBe(401);
      expect((await call('GET', '', session.accessToken)).status).toBe(401);
      expect((await login(sut.url, 'off-admin', 'off-admin-password', from())).status).toBe(200);
      const line = logs
        .text()
        .split('\n')
        .find((entry) => entry.includes('party member disabled') && entry.includes(max.id));
      expect(JSON.parse(line ?? '{}')).toMatchObject({ partyId: party.id, userId: admin.id, targetUserId: max.id, outcome: 'disabled' });

      // Again: nothing more to do, the same answer.
      expect(await call('POST', `/users/${max.id}/disable`, adminToken)).toEqual(answer);
    });

    it("answers 404 for another party's person, an unknown id and one that is not an id, and disables no one", async () => {
      const { adminToken } = await teamOf('mine');
      const other = await teamOf('theirs');

      for (const id of [other.max.id, other.admin.id, '00000000-0000-4000-8000-000000000000', 'not-an-id']) {
        expect(await call('POST', `/users/${id}/disable`, adminToken)).toEqual({
          status: 404,
          body: { error: 'not_found', message: 'no such user in your party' },
        });
      }
      expect((await login(sut.url, 'theirs-max', 'theirs-max-password', from())).status).toBe(200);
      expect((await login(sut.url, 'theirs-admin', 'theirs-admin-password', from())).status).toBe(200);
    });

    it('refuses an administrator disabling themself with 409, and keeps them enabled', async () => {
      const { admin, adminToken } = await teamOf('self');

      const answer = await call('POST', `/users/${admin.id}/disable`, adminToken);

      expect(answer).toEqual({
        status: 409,
        body: { error: 'conflict', message: 'you cannot disable yourself: another administrator of your party, or the operator, can' },
      });
      expect((await login(sut.url, 'self-admin', 'self-admin-password', from())).status).toBe(200);
    });
  });
});
