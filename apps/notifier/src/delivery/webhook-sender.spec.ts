import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Resolve } from '@bedrequest/http';
import { WebhookSender, type WebhookSenderOptions } from './webhook-sender';

describe('WebhookSender against a local receiver', () => {
  let server: Server;
  let base: string;
  let port: number;
  let received: { path: string; headers: IncomingMessage['headers']; body: string }[];
  let respond: (req: IncomingMessage, res: ServerResponse) => void;
  /** TCP connections the receiver accepted. */
  let connections: number;
  const senders: WebhookSender[] = [];
  const newSender = (options: Omit<WebhookSenderOptions, 'connectionsPerOrigin'> & Partial<WebhookSenderOptions>) => {
    const sender = new WebhookSender({ connectionsPerOrigin: 4, ...options });
    senders.push(sender);
    return sender;
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ path: req.url ?? '', headers: req.headers, body });
        respond(req, res);
      });
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  beforeEach(() => {
    received = [];
    connections = 0;
    respond = (_req, res) => res.writeHead(204).end();
  });
  afterAll(async () => {
    await Promise.all(senders.map((sender) => sender.close()));
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const request = { body: '{"id":"e1"}', headers: { 'content-type': 'application/json', 'webhook-id': 'e1' } };
  const permissive = newSender({ timeoutMs: 1_000, allowPrivate: true });

  it('POSTs the body with its headers and reports the status', async () => {
    const { outcome, durationMs } = await permissive.send(`${base}/hook?x=1`, request);

    expect(outcome).toEqual({ kind: 'answered', statusCode: 204, retryAfter: undefined });
    expect(durationMs).toBeGreaterThanOrEqual(0);
    expect(received).toEqual([
      {
        path: '/hook?x=1',
        body: '{"id":"e1"}',
        headers: expect.objectContaining({ 'content-type': 'application/json', 'webhook-id': 'e1', 'content-length': '11' }),
      },
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

  it('gives up on a receiver that does not answer in time, and cuts the request it left unanswered', async () => {
    let cut!: () => void;
    const requestCut = new Promise<void>((resolve) => (cut = resolve));
    // Never answers: the request ends only when the sender cuts it.
    respond = (_req, res) => res.once('close', () => !res.writableEnded && cut());
    const sender = newSender({ timeoutMs: 200, allowPrivate: true });

    // How soon is the bench's: a sender that never gave up would hang here (the test's timeout).
    const { outcome, durationMs } = await sender.send(`${base}/slow`, request);

    expect(outcome).toEqual({ kind: 'no-answer', reason: 'timeout', error: 'no answer within 200 ms' });
    // Not before its deadline: a timer never fires early, however busy the machine.
    expect(durationMs).toBeGreaterThanOrEqual(190);
    await requestCut;
    expect(received.map((entry) => entry.path)).toEqual(['/slow']);
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
      const sender = newSender({ timeoutMs: 1_000, allowPrivate: false });

      const { outcome } = await sender.send(`${base}/hook`, request);

      expect(outcome).toEqual({ kind: 'no-answer', reason: 'refused', error: 'the callback address is a loopback address' });
      expect(received).toEqual([]);
    });

    it('refuses a name that resolves to loopback, after resolution, without connecting', async () => {
      const sender = newSender({ timeoutMs: 1_000, allowPrivate: false, resolve: resolvingTo('127.0.0.1') });

      const { outcome } = await sender.send(`http://receiver.example.org:${port}/hook`, request);

      expect(outcome).toMatchObject({ kind: 'no-answer', reason: 'refused' });
      expect(received).toEqual([]);
    });

    it('refuses a name re-pointed at a private network since the subscription was saved (DNS rebinding)', async () => {
      const sender = newSender({ timeoutMs: 1_000, allowPrivate: false, resolve: resolvingTo('10.1.2.3') });

      expect((await sender.send(`http://receiver.example.org:${port}/hook`, request)).outcome).toEqual({
        kind: 'no-answer',
        reason: 'refused',
        error: 'the callback address resolves to a private address',
      });
    });

    it("refuses the system resolver's answer for localhost", async () => {
      const sender = newSender({ timeoutMs: 1_000, allowPrivate: false });

      expect((await sender.send(`http://localhost:${port}/hook`, request)).outcome).toMatchObject({ kind: 'no-answer', reason: 'refused' });
      expect(received).toEqual([]);
    });
  });

  describe('connection pool', () => {
    const countingResolve = () => {
      const lookups: string[] = [];
      const resolve: Resolve = async (hostname) => {
        lookups.push(hostname);
        return [{ address: '127.0.0.1', family: 4 }];
      };
      return { lookups, resolve };
    };

    // The pool learns that a connection is free again in the next turn of the event loop; the
    // worker's next claim comes later than that.
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

    it('sends one attempt after another over one kept-alive connection, resolving the name once', async () => {
      const { lookups, resolve } = countingResolve();
      const sender = newSender({ timeoutMs: 1_000, allowPrivate: true, resolve });

      for (let n = 0; n < 20; n += 1) {
        expect((await sender.send(`http://receiver.test:${port}/hook`, request)).outcome).toMatchObject({ statusCode: 204 });
        await nextTurn();
      }

      expect(received).toHaveLength(20);
      expect(connections).toBe(1);
      expect(lookups).toEqual(['receiver.test']);
    });

    it('opens no more than connectionsPerOrigin connections to one receiver, each through the address lookup', async () => {
      const { lookups, resolve } = countingResolve();
      const sender = newSender({ timeoutMs: 2_000, allowPrivate: true, resolve, connectionsPerOrigin: 3 });
      respond = (_req, res) => setTimeout(() => res.writeHead(204).end(), 5);

      const results = await Promise.all(Array.from({ length: 30 }, () => sender.send(`http://receiver.test:${port}/hook`, request)));

      expect(results.every((result) => result.outcome.kind === 'answered' && result.outcome.statusCode === 204)).toBe(true);
      expect(connections).toBeLessThanOrEqual(3);
      expect(lookups).toHaveLength(connections);
    });

    it("keeps a connection usable after a failed attempt's answer", async () => {
      const sender = newSender({ timeoutMs: 1_000, allowPrivate: true });
      respond = (req, res) => (req.url === '/fail' ? res.writeHead(500).end('x'.repeat(10_000)) : res.writeHead(204).end());

      expect((await sender.send(`${base}/fail`, request)).outcome).toMatchObject({ statusCode: 500 });
      await nextTurn();
      expect((await sender.send(`${base}/ok`, request)).outcome).toMatchObject({ statusCode: 204 });
      expect(connections).toBe(1);
    });

    it('in production mode refuses a name that now resolves to a private address when it needs a new connection', async () => {
      let address = '127.0.0.1';
      const sender = newSender({ timeoutMs: 1_000, allowPrivate: false, resolve: async () => [{ address, family: 4 }] });

      for (address of ['127.0.0.1', '10.0.0.8', '169.254.169.254']) {
        expect((await sender.send(`http://receiver.example.org:${port}/hook`, request)).outcome).toMatchObject({ kind: 'no-answer', reason: 'refused' });
      }
      expect(connections).toBe(0);
    });
  });

  it('with private addresses allowed, delivers to localhost', async () => {
    expect((await permissive.send(`http://localhost:${port}/hook`, request)).outcome).toMatchObject({ kind: 'answered', statusCode: 204 });
  });
});
