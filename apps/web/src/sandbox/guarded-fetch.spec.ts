import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkReceiver } from '@bedrequest/webhook-check';
import { GuardedFetch } from './guarded-fetch';

/** The web app's receiver check sends through the address guard: what a person names is not a way into the network. */
describe("the receiver check's fetch", () => {
  let server: Server;
  let port: number;
  const fetches: GuardedFetch[] = [];
  const guarded = (allowPrivate: boolean) => {
    const made = new GuardedFetch(allowPrivate);
    fetches.push(made);
    return made.fetch;
  };

  beforeAll(async () => {
    server = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    await Promise.all(fetches.map((made) => made.close()));
    await new Promise((resolve) => server.close(resolve));
  });

  it('refuses a loopback address, as an IP literal and as a name, without connecting, in production mode', async () => {
    const fetch = guarded(false);
    await expect(fetch(`http://127.0.0.1:${port}/hooks`, { method: 'POST' })).rejects.toThrow('the receiver address resolves to a loopback address');
    await expect(fetch(`http://[::1]:${port}/hooks`, { method: 'POST' })).rejects.toThrow(/the receiver address resolves to a loopback/);
    const byName = await fetch(`http://localhost:${port}/hooks`, { method: 'POST' }).catch((error: Error) => error);
    expect(String((byName as Error & { cause?: Error }).cause?.message)).toMatch(/the receiver address resolves to a loopback/);
  });

  it('reaches a receiver on this machine where private addresses are allowed (development, test)', async () => {
    const answer = await guarded(true)(`http://127.0.0.1:${port}/hooks`, { method: 'POST', body: '{}' });
    expect(answer.status).toBe(204);
  });

  it("turns a refused address into the check's lines, each saying why", async () => {
    const result = await checkReceiver({
      url: `http://127.0.0.1:${port}/hooks`,
      secret: `whsec_${randomBytes(32).toString('base64')}`,
      fetchImpl: guarded(false),
    });
    expect(result.ok).toBe(false);
    expect(result.lines[0]).toMatchObject({ name: 'answers-2xx-in-time', ok: false });
    expect(result.lines[0]?.detail).toContain('the receiver address resolves to a loopback address');
  });
});
