import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { PartyClient } from './party.client';
import { partyRouter } from './party.router';

const person: Principal = {
  partyId: '7b0c6b1e-8d3a-4a55-9f57-2a3f0e1c9d10',
  userId: '1f7e3c52-0a4b-4c8e-b1d6-5e9a2f3c4b70',
  role: 'referrer',
  ikNumbers: ['260000001'],
  fhirBase: 'https://nord.example/fhir',
};
const party = { id: person.partyId, role: 'referrer', name: 'Klinikum Nord', ik: ['260000001'], fhirBase: 'https://nord.example/fhir' };
const max = {
  id: '3c1d2e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f',
  username: 'max.beispiel',
  displayName: 'Max Beispiel',
  administrator: false,
  emailNotifications: false,
  disabled: false,
  createdAt: '2026-12-01T08:00:00.000Z',
};
const newMember = { username: 'max.beispiel', password: 'a-long-password-1', displayName: 'Max Beispiel' };

/**
 * The party and its people, with a stand-in for auth's internal API (an HTTP server in this
 * process, called through the real PartyClient). Auth's own rules are tested in
 * apps/auth/src/parties/party-members.router.int.spec.ts.
 */
describe('the party and its people: /api/v1/party', () => {
  let auth: Server;
  let authUrl: string;
  let calls: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  let answer: { status: number; body: string; contentType?: string };

  beforeAll(async () => {
    auth = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' }).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => auth.listen(0, '127.0.0.1', resolve));
    authUrl = `http://127.0.0.1:${(auth.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    calls = [];
    answer = { status: 200, body: '{}' };
  });
  afterAll(() => {
    auth.closeAllConnections();
    return new Promise((resolve) => auth.close(resolve));
  });

  const gateway = (url = authUrl) =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = person;
        res.locals.accessToken = 'the-persons-token';
        next();
      })
      .use('/api/v1/party', partyRouter({ party: new PartyClient(url, 2_000), logger: silentLogger() }));
  const refusal = (status: number, error: string, message: string) => ({ status, body: JSON.stringify({ error, message }) });

  it("answers the caller's party as auth reads it, asked with the caller's token", async () => {
    answer = { status: 200, body: JSON.stringify(party) };

    const response = await request(gateway()).get('/api/v1/party').set('x-correlation-id', 'party-1');

    expect([response.status, response.body]).toEqual([200, party]);
    expect(calls).toEqual([
      {
        method: 'GET',
        url: '/internal/party',
        headers: expect.objectContaining({ authorization: 'Bearer the-persons-token', 'x-correlation-id': 'party-1' }),
        body: '',
      },
    ]);
  });

  it("lists the party's people", async () => {
    answer = { status: 200, body: JSON.stringify({ items: [max] }) };

    const response = await request(gateway()).get('/api/v1/party/users');

    expect([response.status, response.body]).toEqual([200, { items: [max] }]);
    expect(calls[0]).toMatchObject({ method: 'GET', url: '/internal/party/users' });
  });

  it("passes auth's 403 for a person who is not an administrator on, with its message", async () => {
    answer = refusal(403, 'forbidden', 'only an administrator of the party manages its people');

    const response = await request(gateway()).get('/api/v1/party/users');

    expect([response.status, response.body]).toEqual([403, { error: 'forbidden', message: 'only an administrator of the party manages its people' }]);
  });

  it('answers 401 with a Bearer challenge when auth finds the person or their party disabled', async () => {
    answer = refusal(401, 'unauthorized', 'the person of this access token or their party is disabled; log in again');

    const response = await request(gateway()).get('/api/v1/party');

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="bedrequest", error="invalid_token", error_description="the person of this access token or their party is disabled; log in again"',
    );
    expect(response.body).toEqual({ error: 'unauthorized', message: 'the person of this access token or their party is disabled; log in again' });
  });

  describe('/users/me/notifications', () => {
    it("reads and sets the caller's own choice of e-mail with their token, the body as checked", async () => {
      answer = { status: 200, body: JSON.stringify({ email: true, address: 'max@nord.example' }) };

      const read = await request(gateway()).get('/api/v1/party/users/me/notifications');
      const set = await request(gateway()).put('/api/v1/party/users/me/notifications').send({ email: true });

      expect([read.status, read.body, set.status, set.body]).toEqual([
        200,
        { email: true, address: 'max@nord.example' },
        200,
        { email: true, address: 'max@nord.example' },
      ]);
      expect(calls.map((call) => [call.method, call.url, call.body, call.headers.authorization])).toEqual([
        ['GET', '/internal/party/users/me/notifications', '', 'Bearer the-persons-token'],
        ['PUT', '/internal/party/users/me/notifications', '{"email":true}', 'Bearer the-persons-token'],
      ]);
    });

    it("refuses a body that is not {email: boolean} without asking auth, and passes auth's 409 for a person without an address on", async () => {
      const refused = await Promise.all(
        [{ email: 'yes' }, { email: true, address: 'other@example.org' }, {}].map((body) =>
          request(gateway()).put('/api/v1/party/users/me/notifications').send(body),
        ),
      );
      expect(refused.map((response) => response.status)).toEqual([400, 400, 400]);
      expect(calls).toEqual([]);

      answer = refusal(409, 'conflict', 'email: you have no e-mail address; an administrator of your party sets it');
      const conflict = await request(gateway()).put('/api/v1/party/users/me/notifications').send({ email: true });
      expect([conflict.status, conflict.body.error]).toEqual([409, 'conflict']);
    });
  });

  describe('POST /users', () => {
    it('adds the person with the body as checked (a display name trimmed) and answers 201 with them', async () => {
      answer = { status: 201, body: JSON.stringify({ ...max, administrator: true }) };

      const response = await request(gateway())
        .post('/api/v1/party/users')
        .send({ ...newMember, displayName: '  Max Beispiel ', administrator: true });

      expect([response.status, response.body]).toEqual([201, { ...max, administrator: true }]);
      expect(calls).toEqual([
        {
          method: 'POST',
          url: '/internal/party/users',
          headers: expect.objectContaining({ authorization: 'Bearer the-persons-token', 'content-type': 'application/json' }),
          body: JSON.stringify({ ...newMember, administrator: true }),
        },
      ]);
    });

    it.each([
      ['a password of 11 characters', { ...newMember, password: 'x'.repeat(11) }, 'password: must be at least 12 characters'],
      ['a password of 257 characters', { ...newMember, password: 'x'.repeat(257) }, 'password: must be at most 256 characters'],
      ['a username with a space', { ...newMember, username: 'max beispiel' }, expect.stringMatching(/^username: must be 1-128 letters/)],
      ['a username of 129 characters', { ...newMember, username: 'm'.repeat(129) }, expect.stringMatching(/^username: must be 1-128 letters/)],
      ['an empty display name', { ...newMember, displayName: '  ' }, 'displayName: must not be empty'],
      ['a display name of two lines', { ...newMember, displayName: 'Max\nBeispiel' }, 'displayName: must be one line without control characters'],
      ['a malformed e-mail address', { ...newMember, email: 'max at example' }, 'email: must be an e-mail address'],
      ['administrator as a string', { ...newMember, administrator: 'yes' }, 'administrator: must be true or false'],
      ['no password', { username: 'max' }, 'password: is required'],
      ['an unknown field', { ...newMember, role: 'clinic' }, 'role: not allowed'],
      ['an array', [newMember], expect.any(String)],
    ])('answers 400 invalid_request without asking auth for %s', async (_, body, message) => {
      const response = await request(gateway()).post('/api/v1/party/users').send(body);

      expect([response.status, response.body]).toEqual([400, { error: 'invalid_request', message }]);
      expect(calls).toEqual([]);
    });

    it('answers 400 for an empty body and 415 for a form, without asking auth', async () => {
      expect((await request(gateway()).post('/api/v1/party/users')).status).toBe(400);
      expect((await request(gateway()).post('/api/v1/party/users').type('form').send('username=max')).status).toBe(415);
      expect(calls).toEqual([]);
    });

    it("passes auth's 409 for a taken username and its 400s on", async () => {
      answer = refusal(409, 'conflict', 'username: is taken (usernames are unique across all parties)');
      const taken = await request(gateway()).post('/api/v1/party/users').send(newMember);
      answer = refusal(400, 'invalid_request', 'username: must be 1-128 letters');
      const refused = await request(gateway()).post('/api/v1/party/users').send(newMember);

      expect([taken.status, taken.body]).toEqual([409, { error: 'conflict', message: 'username: is taken (usernames are unique across all parties)' }]);
      expect([refused.status, refused.body]).toEqual([400, { error: 'invalid_request', message: 'username: must be 1-128 letters' }]);
    });
  });

  describe('POST /users/{id}/disable', () => {
    it('disables the person of that id and answers them', async () => {
      answer = { status: 200, body: JSON.stringify({ ...max, disabled: true }) };

      const response = await request(gateway()).post(`/api/v1/party/users/${max.id}/disable`);

      expect([response.status, response.body]).toEqual([200, { ...max, disabled: true }]);
      expect(calls).toEqual([
        {
          method: 'POST',
          url: `/internal/party/users/${max.id}/disable`,
          headers: expect.objectContaining({ authorization: 'Bearer the-persons-token' }),
          body: '',
        },
      ]);
    });

    it('passes the id on encoded', async () => {
      answer = refusal(404, 'not_found', 'no such user in your party');

      const response = await request(gateway()).post('/api/v1/party/users/a%2Fb%3F/disable');

      expect([response.status, response.body]).toEqual([404, { error: 'not_found', message: 'no such user in your party' }]);
      expect(calls[0]?.url).toBe('/internal/party/users/a%2Fb%3F/disable');
    });

    it("passes auth's 409 for the administrator themself on", async () => {
      answer = refusal(409, 'conflict', 'you cannot disable yourself');

      const response = await request(gateway()).post(`/api/v1/party/users/${person.userId}/disable`);

      expect([response.status, response.body]).toEqual([409, { error: 'conflict', message: 'you cannot disable yourself' }]);
    });
  });

  describe("auth's failures", () => {
    it.each([
      ['another status', 500, JSON.stringify({ error: 'internal_error', message: 'internal error' }), 'application/json'],
      ['a body outside its contract', 200, JSON.stringify({ ...party, role: 'portal' }), 'application/json'],
      ["a proxy's error page", 502, '<html>Bad Gateway</html>', 'text/html'],
    ])('answers 503 with Retry-After when auth answers %s', async (_what, status, body, contentType) => {
      answer = { status, body, contentType };

      const response = await request(gateway()).get('/api/v1/party');

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toEqual({ error: 'unavailable', message: "the party's people are temporarily unavailable; please retry" });
    });

    it('answers 503 with Retry-After when auth is not reachable', async () => {
      const response = await request(gateway('http://127.0.0.1:1')).post(`/api/v1/party/users/${max.id}/disable`);

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
    });
  });
});
