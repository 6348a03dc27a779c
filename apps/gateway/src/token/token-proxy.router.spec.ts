import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import request from 'supertest';
import { silentLogger } from '@bedrequest/testing';
import { authTokenClient, tokenProxyRouter } from './token-proxy.router';

/**
 * The gateway forwards the four token endpoints to the auth service unchanged. Against a stand-in
 * for auth (an HTTP server in this process); the real auth service behind the gateway is tested in
 * tools/e2e/auth-gateway-contract.int.spec.ts.
 */
describe('token endpoints: /api/v1/token', () => {
  let auth: Server;
  let authUrl: string;
  let calls: { method: string; url: string; headers: IncomingHttpHeaders; body: string }[];
  let answer: { status: number; headers: OutgoingHttpHeaders; body: string };

  beforeAll(async () => {
    auth = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        calls.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
        res.writeHead(answer.status, answer.headers).end(answer.body);
      });
    });
    await new Promise<void>((resolve) => auth.listen(0, '127.0.0.1', resolve));
    authUrl = `http://127.0.0.1:${(auth.address() as AddressInfo).port}`;
  });
  beforeEach(() => {
    calls = [];
    answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{}' };
  });
  afterAll(() => {
    auth.closeAllConnections();
    return new Promise((resolve) => auth.close(resolve));
  });

  const gateway = (url = authUrl) => express().use('/api/v1/token', tokenProxyRouter(authTokenClient(url), silentLogger()));

  it("forwards a login's body byte for byte and answers auth's status and body", async () => {
    const tokens = '{"tokenType":"Bearer","accessToken":"eyJ...","expiresIn":3600,"refreshToken":"Tq3..."}';
    answer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, body: tokens };
    const login = '{ "username": "demo-referrer",  "password": "demo-referrer-password" }';

    const response = await request(gateway())
      .post('/api/v1/token/login')
      .set('content-type', 'application/json')
      .set('x-correlation-id', 'login-1')
      .send(login);

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.text).toBe(tokens);
    expect(calls).toEqual([
      {
        method: 'POST',
        url: '/api/v1/token/login',
        headers: expect.objectContaining({
          'content-type': 'application/json',
          'x-correlation-id': 'login-1',
          'x-forwarded-for': expect.stringMatching(/127\.0\.0\.1/),
        }),
        body: login,
      },
    ]);
  });

  it('forwards a refresh', async () => {
    await request(gateway()).post('/api/v1/token/refresh').send({ refreshToken: 'Tq3' });

    expect(calls[0]).toMatchObject({ method: 'POST', url: '/api/v1/token/refresh', body: '{"refreshToken":"Tq3"}' });
  });

  it("forwards a revocation and answers auth's 200 without a body, not to be cached", async () => {
    answer = { status: 200, headers: { 'cache-control': 'no-store', pragma: 'no-cache' }, body: '' };

    const response = await request(gateway()).post('/api/v1/token/revoke').set('x-correlation-id', 'logout-1').send({ refreshToken: 'Tq3' });

    expect(response.status).toBe(200);
    expect(response.headers['content-length']).toBe('0');
    expect(response.headers['content-type']).toBeUndefined();
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
    expect(calls).toEqual([
      {
        method: 'POST',
        url: '/api/v1/token/revoke',
        headers: expect.objectContaining({ 'content-type': 'application/json', 'x-correlation-id': 'logout-1' }),
        body: '{"refreshToken":"Tq3"}',
      },
    ]);
  });

  it('forwards the status check without a body', async () => {
    answer = { status: 200, headers: { 'content-type': 'application/json' }, body: '{"status":"ok","time":"2026-11-22T10:00:00.000Z"}' };

    const response = await request(gateway()).get('/api/v1/token/status');

    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', time: '2026-11-22T10:00:00.000Z' });
    expect(calls[0]).toMatchObject({ method: 'GET', url: '/api/v1/token/status', body: '' });
  });

  it("answers a HEAD of the status check with the GET's status and headers and no body, asking auth the GET", async () => {
    const status = '{"status":"ok","time":"2026-11-22T10:00:00.000Z"}';
    answer = { status: 200, headers: { 'content-type': 'application/json' }, body: status };

    const response = await request(gateway()).head('/api/v1/token/status');

    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['content-length']).toBe(String(status.length));
    expect(response.text).toBeUndefined();
    expect(calls).toEqual([
      { method: 'GET', url: '/api/v1/token/status', headers: expect.not.objectContaining({ 'content-type': expect.anything() }), body: '' },
    ]);
  });

  it('leaves malformed JSON for auth to refuse, and answers its refusal', async () => {
    answer = { status: 400, headers: { 'content-type': 'application/json' }, body: '{"error":"invalid_request","message":"the body is not JSON"}' };

    const response = await request(gateway()).post('/api/v1/token/login').set('content-type', 'application/json').send('{"username":');

    expect(calls[0]?.body).toBe('{"username":');
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ error: 'invalid_request', message: 'the body is not JSON' });
  });

  it("passes on Retry-After and WWW-Authenticate, and no other header of auth's", async () => {
    answer = {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': '30', 'www-authenticate': 'Bearer', 'x-internal': 'secret', 'set-cookie': 'a=b' },
      body: '{"error":"too_many_requests","message":"too many failed logins"}',
    };

    const response = await request(gateway()).post('/api/v1/token/login').send({ username: 'u', password: 'p' });

    expect(response.status).toBe(429);
    expect(response.headers['retry-after']).toBe('30');
    expect(response.headers['www-authenticate']).toBe('Bearer');
    expect(response.headers['x-internal']).toBeUndefined();
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('passes on that token responses must not be cached (RFC 6749 §5.1)', async () => {
    answer = { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' }, body: '{}' };

    const response = await request(gateway()).post('/api/v1/token/refresh').send({ refreshToken: 'Tq3' });

    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers.pragma).toBe('no-cache');
  });

  it("sends auth only the allow-listed headers, not the caller's credentials or cookies", async () => {
    await request(gateway())
      .post('/api/v1/token/login')
      .set('authorization', 'Bearer someone-elses-token')
      .set('cookie', 'session=1')
      .set('x-forwarded-for', '203.0.113.9')
      .send({ username: 'u', password: 'p' });

    const headers = calls[0]!.headers;
    expect(headers.authorization).toBeUndefined();
    expect(headers.cookie).toBeUndefined();
    // The client address is the connection's, not what the caller claims.
    expect(headers['x-forwarded-for']).not.toContain('203.0.113.9');
  });

  it('answers 401 with WWW-Authenticate for a failed login', async () => {
    answer = {
      status: 401,
      headers: { 'content-type': 'application/json', 'www-authenticate': 'Bearer' },
      body: '{"error":"invalid_credentials","message":"wrong username or password"}',
    };

    const response = await request(gateway()).post('/api/v1/token/login').send({ username: 'u', password: 'wrong' });

    expect(response.status).toBe(401);
    expect(response.headers['www-authenticate']).toBe('Bearer');
  });

  it('answers 413 for a body over 16 KiB without forwarding it', async () => {
    const response = await request(gateway())
      .post('/api/v1/token/login')
      .send({ username: 'u', password: 'x'.repeat(17 * 1024) });

    expect(response.status).toBe(413);
    expect(calls).toEqual([]);
  });

  it('answers an empty body with 400 and a body that is not JSON by its content type with 415, without forwarding either', async () => {
    const empty = await request(gateway()).post('/api/v1/token/refresh');
    const form = await request(gateway()).post('/api/v1/token/login').type('form').send('username=u&password=p');

    expect([empty.status, empty.body]).toEqual([400, { error: 'invalid_request', message: 'the request body is empty' }]);
    expect([form.status, form.body]).toEqual([415, { error: 'unsupported_media_type', message: 'Content-Type must be application/json' }]);
    expect(calls).toEqual([]);
  });

  it.each([
    ['GET', '/api/v1/token/login'],
    ['POST', '/api/v1/token/status'],
    ['POST', '/api/v1/token/introspect'],
  ])('forwards nothing else: %s %s', async (method, path) => {
    const response = await request(gateway())[method === 'GET' ? 'get' : 'post'](path);

    expect(response.status).toBe(404);
    expect(calls).toEqual([]);
  });

  it('answers 503 with Retry-After when auth is not reachable', async () => {
    const response = await request(gateway('http://127.0.0.1:1')).post('/api/v1/token/login').send({ username: 'u', password: 'p' });

    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).toEqual({ error: 'unavailable', message: expect.any(String) });
  });
});
