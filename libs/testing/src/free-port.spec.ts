import { createServer, type Server } from 'node:net';
import { freePort } from './free-port';

describe('freePort', () => {
  it('hands out distinct ports below the ephemeral range to concurrent callers', async () => {
    const ports = await Promise.all(Array.from({ length: 8 }, freePort));
    expect(new Set(ports).size).toBe(8);
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(10_000);
      expect(port).toBeLessThan(20_000);
    }
  });

  it('skips a port someone holds', async () => {
    const first = await freePort();
    // The walk wraps around its slice of 625 ports; hold the next ones and ask past them.
    const held: Server[] = [];
    try {
      const next = await freePort();
      const holder = createServer();
      await new Promise<void>((resolve) => holder.listen(next + 1, '127.0.0.1', resolve));
      held.push(holder);
      const after = await freePort();
      expect(after).not.toBe(next + 1);
      expect([first, next]).not.toContain(after);
    } finally {
      await Promise.all(held.map((server) => new Promise((resolve) => server.close(resolve))));
    }
  });
});
