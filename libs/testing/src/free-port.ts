import { createServer } from 'node:net';

/**
 * Ports handed out by `freePort()`: below Linux's ephemeral range (32768–60999, which `listen(0)` and
 * outgoing connections draw from) and below the webhook receivers' (20000–31999). A port picked
 * with `listen(0)` and released stayed in the ephemeral range, where any outgoing connection could
 * take it as its source port before the service it was meant for bound it: CI's run at c8716d4
 * failed with `web: listen EADDRINUSE 127.0.0.1:40481` that way, while six services connected to
 * PostgreSQL, Redis and RabbitMQ. Here a port is taken only by someone asking for it by number.
 */
const RANGE = { from: 10_000, count: 10_000 };
/** Each process (a jest worker by its JEST_WORKER_ID, else by pid) draws from its own slice. */
const SLICES = 16;
const SLICE_SIZE = RANGE.count / SLICES;
/** Ports others hold by number in the range: RabbitMQ's management and Prometheus listeners. */
const RESERVED = new Set([15_672, 15_692]);

const slice = (Number(process.env.JEST_WORKER_ID ?? process.pid) % SLICES) * SLICE_SIZE;
/** Walks the slice in turn from a random start, so a port handed out recently is not handed out again soon. */
let cursor = Math.floor(Math.random() * SLICE_SIZE);

/**
 * A TCP port on loopback that was free when asked (bound and released), for a process to bind
 * shortly after. Concurrent calls get different ports.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < SLICE_SIZE; attempt++) {
    const port = RANGE.from + slice + (cursor++ % SLICE_SIZE);
    if (!RESERVED.has(port) && (await isFree(port))) return port;
  }
  throw new Error(`no free port in ${RANGE.from + slice}–${RANGE.from + slice + SLICE_SIZE - 1}`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
