import { Agent, request, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import express, { type Response } from 'express';
import { Registry } from 'prom-client';
import { silentLogger } from '@bedrequest/testing';
import { listen, probeRouter } from './http';
import { closeServer, FIRST_REQUEST_LINGER_MS, IDLE_LINGER_MS, Lifecycle, trackResponses } from './lifecycle';

/** A GET over `agent`: its status, its Connection header and its body. */
function get(port: number, path: string, agent: Agent): Promise<{ status: number; connection: string | undefined; body: string }> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent }, (response: IncomingMessage) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body }));
    })
      .on('error', reject)
      .end();
  });
}

/** The server's side of every connection it accepts, to see which of them it has closed. */
function connectionsOf(server: Server): Socket[] {
  const sockets: Socket[] = [];
  server.on('connection', (socket: Socket) => sockets.push(socket));
  return sockets;
}

/** A promise and the function that resolves it: an event of the code under test, as the test awaits it. */
function signal<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

/**
 * Moves the fake clock (Date.now and the timers) on by `ms`, running the timers that fall due and
 * the promise callbacks that follow each. The sockets' own events come from the real event loop.
 */
const elapse = (ms: number) => jest.advanceTimersByTimeAsync(ms);

describe('Lifecycle', () => {
  afterEach(() => jest.useRealTimers());

  it('closes in reverse order, each closer given what is left of one budget', async () => {
    jest.useFakeTimers();
    const lifecycle = new Lifecycle(silentLogger(), 1_000);
    const calls: { name: string; remainingMs: number }[] = [];
    const closer = (name: string, takesMs: number) => async (remainingMs: number) => {
      calls.push({ name, remainingMs });
      if (takesMs > 0) await new Promise((resolve) => setTimeout(resolve, takesMs));
    };
    lifecycle.onStop('database', closer('database', 0));
    lifecycle.onStop('consumers', closer('consumers', 300));
    lifecycle.onStop('http', closer('http', 0));

    expect(lifecycle.stopping).toBe(false);
    const stopped = lifecycle.stop();
    expect(lifecycle.stopping).toBe(true);
    await elapse(300);
    await stopped;

    expect(calls).toEqual([
      { name: 'http', remainingMs: 1_000 },
      { name: 'consumers', remainingMs: 1_000 },
      { name: 'database', remainingMs: 700 },
    ]);
  });

  it('gives a closer whose turn comes after the budget is spent no time, and still calls it', async () => {
    jest.useFakeTimers();
    const lifecycle = new Lifecycle(silentLogger(), 1_000);
    const calls: { name: string; remainingMs: number }[] = [];
    lifecycle.onStop('database', async (remainingMs) => void calls.push({ name: 'database', remainingMs }));
    lifecycle.onStop('consumers', async (remainingMs) => {
      calls.push({ name: 'consumers', remainingMs });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
    });

    const stopped = lifecycle.stop();
    await elapse(1_500);
    await stopped;

    expect(calls).toEqual([
      { name: 'consumers', remainingMs: 1_000 },
      { name: 'database', remainingMs: 0 },
    ]);
  });

  it('says it is not ready from the moment it stops, before anything closes', async () => {
    const lifecycle = new Lifecycle(silentLogger());
    const app = express().use(probeRouter({ registry: new Registry(), lifecycle, readiness: { broker: () => true } }));
    const server = await listen(app, 0, '127.0.0.1');
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await get(port, '/health/ready', agent)).status).toBe(200);
      let release: () => void = () => undefined;
      lifecycle.onStop('held work', () => new Promise<void>((resolve) => (release = resolve)));
      const stopped = lifecycle.stop();
      expect(await get(port, '/health/ready', agent)).toMatchObject({ status: 503, body: JSON.stringify({ status: 'stopping', checks: {} }) });
      release();
      await stopped;
    } finally {
      agent.destroy();
      server.close();
    }
  });
});

describe('closeServer', () => {
  // Fake timers and Date for closeServer's linger, sweep and cut; the sockets' I/O is real, and so
  // are the turns of the event loop it needs (setImmediate, nextTick).
  beforeEach(() => jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
  afterEach(() => jest.useRealTimers());

  it('finishes the requests under way, tells keep-alive clients to go, and is closed without waiting for their keep-alive timeout', async () => {
    const taken = signal<Response>();
    // The first request is answered when the test says so; the second would be, too (it is not sent).
    const app = express().get('/slow', (_req, res) => taken.resolve(res));
    const server = await listen(app, 0, '127.0.0.1');
    // Longer than the test may run: a server that waited for it would not close within the test.
    server.keepAliveTimeout = 600_000;
    trackResponses(server);
    const { port } = server.address() as AddressInfo;
    // One connection, kept alive: the second request waits for it, as a pooled client's would.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = get(port, '/slow', agent);
      const second = get(port, '/slow', agent);
      const underWay = await taken.promise;
      const closed = closeServer(server, 5_000);
      underWay.send('done');

      expect(await first).toEqual({ status: 200, connection: 'close', body: 'done' });
      // The client learnt to go elsewhere: its next request was not sent on the closing connection.
      await expect(second).rejects.toThrow(/ECONNREFUSED/);
      // With no time passing: neither the cut (5 s) nor a keep-alive timeout closed it.
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it('answers a keep-alive client that sends on its idle connection as the server closes, instead of resetting it', async () => {
    const server = await listen(
      express().get('/fast', (_req, res) => void res.send('done')),
      0,
      '127.0.0.1',
    );
    trackResponses(server);
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      expect((await get(port, '/fast', agent)).connection).toBe('keep-alive');
      // Idle a moment less than IDLE_LINGER_MS (the fake clock moves only when the test says).
      await elapse(IDLE_LINGER_MS - 1);
      const closed = closeServer(server, 5_000);
      expect(await get(port, '/fast', agent)).toEqual({ status: 200, connection: 'close', body: 'done' });
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it('closes a connection idle for IDLE_LINGER_MS at once: the server is closed without waiting', async () => {
    const server = await listen(
      express().get('/fast', (_req, res) => void res.send('done')),
      0,
      '127.0.0.1',
    );
    trackResponses(server);
    const connections = connectionsOf(server);
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await get(port, '/fast', agent)).connection).toBe('keep-alive');
      await elapse(IDLE_LINGER_MS);
      const closed = closeServer(server, 5_000);
      // Closed in the call itself, before any timer of closeServer's could run.
      expect(connections.map((socket) => socket.destroyed)).toEqual([true]);
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it('closes a connection that is idle when the server closes once it has been idle IDLE_LINGER_MS', async () => {
    const server = await listen(
      express().get('/fast', (_req, res) => void res.send('done')),
      0,
      '127.0.0.1',
    );
    trackResponses(server);
    const connections = connectionsOf(server);
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await get(port, '/fast', agent)).connection).toBe('keep-alive');
      const closed = closeServer(server, 5_000);
      await elapse(IDLE_LINGER_MS - 1);
      expect(connections.map((socket) => socket.destroyed)).toEqual([false]);
      // The sweep that finds it idle that long closes it (a sweep every 50 ms: at 250 ms).
      await elapse(1);
      expect(connections.map((socket) => socket.destroyed)).toEqual([true]);
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it('answers a request that comes on a connection older than IDLE_LINGER_MS which had sent none yet, as the server closes', async () => {
    const server = await listen(
      express().get('/fast', (_req, res) => void res.send('done')),
      0,
      '127.0.0.1',
    );
    trackResponses(server);
    const accepted = signal();
    server.once('connection', () => accepted.resolve());
    const { port } = server.address() as AddressInfo;
    const client = connect(port, '127.0.0.1');
    try {
      let answer = '';
      client.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      const ended = new Promise((resolve) => client.once('end', resolve));
      await accepted.promise;
      // A busy process reads the request a while after it accepted the connection.
      await elapse(IDLE_LINGER_MS);
      const closed = closeServer(server, 5_000);
      await elapse(FIRST_REQUEST_LINGER_MS - IDLE_LINGER_MS - 1);
      client.write('GET /fast HTTP/1.1\r\nHost: test\r\n\r\n');
      await ended;
      expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(answer).toMatch(/\r\nConnection: close\r\n/i);
      await closed;
    } finally {
      client.destroy();
    }
  });

  it('closes a connection that has sent no request once it has been open FIRST_REQUEST_LINGER_MS', async () => {
    const server = await listen(
      express().get('/fast', (_req, res) => void res.send('done')),
      0,
      '127.0.0.1',
    );
    trackResponses(server);
    const connections = connectionsOf(server);
    const accepted = signal();
    server.once('connection', () => accepted.resolve());
    const { port } = server.address() as AddressInfo;
    const client = connect(port, '127.0.0.1');
    client.on('error', () => undefined);
    try {
      await accepted.promise;
      const closed = closeServer(server, 5_000);
      await elapse(FIRST_REQUEST_LINGER_MS - 1);
      expect(connections.map((socket) => socket.destroyed)).toEqual([false]);
      await elapse(50);
      expect(connections.map((socket) => socket.destroyed)).toEqual([true]);
      await closed;
    } finally {
      client.destroy();
    }
  });

  it('cuts what is still open when its time is up', async () => {
    const taken = signal();
    const app = express().get('/never', () => taken.resolve());
    const server = await listen(app, 0, '127.0.0.1');
    trackResponses(server);
    const connections = connectionsOf(server);
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      const hanging = get(port, '/never', agent).catch((error: Error) => error.message);
      await taken.promise;
      const closed = closeServer(server, 300);
      await elapse(299);
      expect(connections.map((socket) => socket.destroyed)).toEqual([false]);
      await elapse(1);
      expect(connections.map((socket) => socket.destroyed)).toEqual([true]);
      await closed;
      expect(await hanging).toBe('socket hang up');
    } finally {
      agent.destroy();
    }
  });
});
