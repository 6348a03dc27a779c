import { Agent, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Registry } from 'prom-client';
import { silentLogger } from '@bedrequest/testing';
import { listen, probeRouter } from './http';
import { closeServer, Lifecycle, trackResponses } from './lifecycle';

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

describe('Lifecycle', () => {
  it('closes in reverse order, each closer given what is left of one budget', async () => {
    const lifecycle = new Lifecycle(silentLogger(), 1_000);
    const calls: { name: string; remainingMs: number }[] = [];
    const closer = (name: string, takesMs: number) => async (remainingMs: number) => {
      calls.push({ name, remainingMs });
      await new Promise((resolve) => setTimeout(resolve, takesMs));
    };
    lifecycle.onStop('database', closer('database', 0));
    lifecycle.onStop('consumers', closer('consumers', 300));
    lifecycle.onStop('http', closer('http', 0));

    expect(lifecycle.stopping).toBe(false);
    const stopped = lifecycle.stop();
    expect(lifecycle.stopping).toBe(true);
    await stopped;

    expect(calls.map((call) => call.name)).toEqual(['http', 'consumers', 'database']);
    expect(calls[0]!.remainingMs).toBeGreaterThan(900);
    expect(calls[2]!.remainingMs).toBeLessThan(750);
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
  it('finishes the requests under way, tells keep-alive clients to go, and is closed without waiting for their keep-alive timeout', async () => {
    const app = express().get('/slow', (_req, res) => void setTimeout(() => res.send('done'), 200));
    const server = await listen(app, 0, '127.0.0.1');
    trackResponses(server);
    const { port } = server.address() as AddressInfo;
    // One connection, kept alive: the second request waits for it, as a pooled client's would.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = get(port, '/slow', agent);
      const second = get(port, '/slow', agent);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      const closed = closeServer(server, 5_000);

      expect(await first).toEqual({ status: 200, connection: 'close', body: 'done' });
      // The client learnt to go elsewhere: its next request was not sent on the closing connection.
      await expect(second).rejects.toThrow(/ECONNREFUSED/);
      await closed;
      expect(Date.now() - started).toBeLessThan(1_000);
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
      const closed = closeServer(server, 5_000);
      expect(await get(port, '/fast', agent)).toEqual({ status: 200, connection: 'close', body: 'done' });
      await closed;
    } finally {
      agent.destroy();
    }
  });

  it('closes a connection idle for a while at once: the server is closed without waiting', async () => {
    const server = await listen(
      express().get('/fast', (_req, res) => void res.send('done')),
      0,
      '127.0.0.1',
    );
    trackResponses(server);
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      expect((await get(port, '/fast', agent)).connection).toBe('keep-alive');
      await new Promise((resolve) => setTimeout(resolve, 400));
      const started = Date.now();
      await closeServer(server, 5_000);
      expect(Date.now() - started).toBeLessThan(100);
    } finally {
      agent.destroy();
    }
  });

  it('cuts what is still open when its time is up', async () => {
    const app = express().get('/never', () => undefined);
    const server = await listen(app, 0, '127.0.0.1');
    trackResponses(server);
    const { port } = server.address() as AddressInfo;
    const agent = new Agent({ keepAlive: true });
    try {
      const hanging = get(port, '/never', agent).catch((error: Error) => error.message);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = Date.now();
      await closeServer(server, 300);
      expect(Date.now() - started).toBeLessThan(1_000);
      expect(await hanging).toBe('socket hang up');
    } finally {
      agent.destroy();
    }
  });
});
