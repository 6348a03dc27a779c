import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Resolve } from './address-guard';
import { WebhookSender } from './webhook-sender';

describe('WebhookSender against a local receiver', () => {
  let server: Server;
  let base: string;
  let port: number;
  let received: { path: string; headers: IncomingMessage['headers']; body: string }[];
  let respond: (req: IncomingMessage, res: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        respond(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  beforeEach(() => {
    received = [];
    respond = (_req, res) => res.writeHead(204).end();
  });
  afterAll(() => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(resolve));
  });

  const request = { body: '{"id":"e1"}', headers: { 'content-type': 'application/json', 'webhook-id': 'e1' } };
  const permissive = new WebhookSender({ timeoutMs: 1_000, allowPrivate: true });

  it('POSTs the body with its headers and reports the status', async () => {
    const { outcome, durationMs } = await permissive.send(`${base}/hook?x=1`, request);

    expect(outcome).toEqual({ kind: 'answered', statusCode: 204, retryAfter: undefined });
    expect(durationMs).toBeGreaterThanOrEqual(0);
    expect(received).toEqual([
      { path: '/hook?x=1', body: '{"id":"e1"}', headers: expect.objectContaining({ 'content-type': 'application/json', 'webhook-id': 'e1', 'content-length': '11' }) },
    ]);
  });

  it('does not follow a redirect', async () => {
    respond = (req, res) => (req.url === '/hook' ? res.writeHead(302, { location: `${base}/elsewhere` }).end() : res.writeHead(200).end());

    const { outcome } = await permissive.send(`${base}/hook`, request);

    expect(outcome).toMatchObject({ kind: 'answered', statusCode: 302 });
    expect(received.map((entry) => entry.path)).toEqual(['/hook']);
  });

  it('passes Retry-After on', async () => {
    respond = (_req, res) => res.writeHead(429, { 'retry-after': '7' }).end();

    expect((await permissive.send(`${base}/hook`, request)).outcome).toEqual({ kind: 'answered', statusCode: 429, retryAfter: '7' });
  });

  it('gives up on a receiver that does not answer in time', async () => {
    respond = () => undefined;
    const sender = new WebhookSender({ timeoutMs: 200, allowPrivate: true });

    const { outcome, durationMs } = await sender.send(`${base}/slow`, request);

    expect(outcome).toEqual({ kind: 'no-answer', reason: 'timeout', error: 'no answer within 200 ms' });
    expect(durationMs).toBeGreaterThanOrEqual(190);
    expect(durationMs).toBeLessThan(1_000);
  });

  it('reports a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));

    expect((await permissive.send(`http://127.0.0.1:${closedPort}/`, request)).outcome).toEqual({
      kind: 'no-answer',
      reason: 'network',
      error: 'connection failed: ECONNREFUSED',
    });
  });

  describe('in production mode (private addresses refused)', () => {
    const resolvingTo =
      (address: string): Resolve =>
      async () => [{ address, family: 4 }];

    it('refuses a loopback IP literal without connecting', async () => {
      const sender = new WebhookSender({ timeoutMs: 1_000, allowPrivate: false });

      const { outcome } = await sender.send(`${base}/hook`, request);

      expect(outcome).toEqual({ kind: 'no-answer', reason: 'refused', error: 'the callback address is a loopback address' });
      expect(received).toEqual([]);
    });

    it('refuses a name that resolves to loopback, after resolution, without connecting', async () => {
      const sender = new WebhookSender({ timeoutMs: 1_000, allowPrivate: false, resolve: resolvingTo('127.0.0.1') });

      const { outcome } = await sender.send(`http://receiver.example.org:${port}/hook`, request);

      expect(outcome).toMatchObject({ kind: 'no-answer', reason: 'refused' });
      expect(received).toEqual([]);
    });

    it('refuses a name re-pointed at a private network since the subscription was saved (DNS rebinding)', async () => {
      const sender = new WebhookSender({ timeoutMs: 1_000, allowPrivate: false, resolve: resolvingTo('10.1.2.3') });

      expect((await sender.send(`http://receiver.example.org:${port}/hook`, request)).outcome).toEqual({
        kind: 'no-answer',
        reason: 'refused',
        error: 'the callback address resolves to a private address',
      });
    });

    it('refuses the system resolver\'s answer for localhost', async () => {
      const sender = new WebhookSender({ timeoutMs: 1_000, allowPrivate: false });

      expect((await sender.send(`http://localhost:${port}/hook`, request)).outcome).toMatchObject({ kind: 'no-answer', reason: 'refused' });
      expect(received).toEqual([]);
    });
  });

  it('with private addresses allowed, delivers to localhost', async () => {
    expect((await permissive.send(`http://localhost:${port}/hook`, request)).outcome).toMatchObject({ kind: 'answered', statusCode: 204 });
  });
});
