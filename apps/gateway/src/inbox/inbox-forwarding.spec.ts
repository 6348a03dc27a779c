import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import request from 'supertest';
import { InternalClient } from '@bedrequest/http';
import { clientAddressOf } from '../fhir/intake.client';
import { InboxApi } from './inbox-api';
import { inboxForwardingHeaders } from './inbox-forwarding';

const LOOPBACK = /^(::ffff:)?127\.0\.0\.1$|^::1$/;

/** The address the API's routes record for a request: what `clientAddressOf` makes of it. */
const recorder = () => express().get('/api/v1/clinic/tasks', (req, res) => res.json({ items: [], recordedAddress: clientAddressOf(req) }));

describe("the browser's address across the inbox's loopback call", () => {
  it('is believed from the inbox, which vouches for it with the secret', async () => {
    const answer = await request(recorder()).get('/api/v1/clinic/tasks').set(inboxForwardingHeaders('198.51.100.23'));
    expect(answer.body.recordedAddress).toBe('198.51.100.23');
  });

  it.each([
    ['without the secret', { 'x-forwarded-for': '198.51.100.23' }],
    ['with a wrong secret of the right length', { 'x-forwarded-for': '198.51.100.23', 'x-bedrequest-inbox': Buffer.alloc(32, 7).toString('base64url') }],
    ['with a secret that is too short', { 'x-forwarded-for': '198.51.100.23', 'x-bedrequest-inbox': 'AAAA' }],
  ])('is not believed from a caller %s: the connection counts', async (_, headers) => {
    const answer = await request(recorder()).get('/api/v1/clinic/tasks').set(headers);
    expect(answer.body.recordedAddress).toMatch(LOOPBACK);
  });

  it('is sent by InboxApi with every call it makes for a person, over a real connection', async () => {
    let seen: string | undefined;
    const app = express().get('/api/v1/clinic/tasks', (req, res) => {
      seen = clientAddressOf(req);
      res.json({ items: [], total: 0, counts: {} });
    });
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    const auth = new InternalClient({ service: 'auth', baseUrl: 'http://127.0.0.1:9', timeoutMs: 1_000, unavailableMessage: 'unused' });
    const sut = new InboxApi(() => `http://127.0.0.1:${(server.address() as AddressInfo).port}`, auth);
    try {
      await sut.tasks(new URLSearchParams(), { token: 'a-token', correlationId: 'c-1', clientAddress: '203.0.113.40' }).catch(() => undefined);
      expect(seen).toBe('203.0.113.40');
    } finally {
      await sut.close();
      await auth.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
