import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Logger } from 'pino';

/**
 * A closer: stops one thing the service started. `remainingMs` is what is left of the stop's budget
 * (`SHUTDOWN_TIMEOUT_MS`) when its turn comes: a closer that waits for work to finish waits at most
 * that long, and then hands the work back (see docs/operations.md, "Stopping").
 */
export type Closer = (remainingMs: number) => Promise<unknown>;

/**
 * Every `initX` registers its `closeX` here; `stop` closes them in reverse order (HTTP first, then
 * consumers, then connections), each once, logging but not stopping on a failing closer. From the
 * moment `stop` is called the service is `stopping`: its readiness answers 503 (probeRouter), before
 * anything closes. The closers share one budget, `timeoutMs`, so that the whole stop fits the grace
 * period an orchestrator gives between SIGTERM and SIGKILL.
 */
export class Lifecycle {
  private readonly closers: { name: string; close: Closer }[] = [];
  private stopped?: Promise<void>;

  constructor(
    private readonly logger: Logger,
    /** How long the closers may take between them to finish or hand back the work they hold. */
    private readonly timeoutMs = 10_000,
  ) {}

  onStop(name: string, close: Closer): void {
    this.closers.push({ name, close });
  }

  /** True once `stop` was called: the service takes no new work and is not ready any more. */
  get stopping(): boolean {
    return this.stopped !== undefined;
  }

  stop(): Promise<void> {
    this.stopped ??= this.closeAll();
    return this.stopped;
  }

  private async closeAll(): Promise<void> {
    const started = Date.now();
    const deadline = started + this.timeoutMs;
    this.logger.info({ timeoutMs: this.timeoutMs }, 'stopping');
    for (const { name, close } of [...this.closers].reverse()) {
      try {
        await close(Math.max(0, deadline - Date.now()));
        this.logger.debug({ component: name }, 'stopped');
      } catch (error) {
        this.logger.error({ component: name, err: (error as Error).message }, 'failed to stop cleanly');
      }
    }
    this.logger.info({ durationMs: Date.now() - started }, 'stopped');
  }
}

/** What closeServer needs of a server: the responses it is writing, and since when each idle connection is idle. */
interface ServerState {
  readonly responses: Set<ServerResponse>;
  readonly idleSince: Map<Socket, number>;
  /** Connections that have not sent a request yet. */
  readonly unused: Set<Socket>;
  closing: boolean;
}

const trackedServers = new WeakMap<Server, ServerState>();

/**
 * Makes `server` closable by closeServer: keeps track of the responses it is writing and of its idle
 * connections and, once it is closing, answers every request with `Connection: close`. Call it
 * before the server takes connections.
 */
export function trackResponses(server: Server): void {
  const state: ServerState = { responses: new Set(), idleSince: new Map(), unused: new Set(), closing: false };
  trackedServers.set(server, state);
  server.on('connection', (socket: Socket) => {
    state.idleSince.set(socket, Date.now());
    state.unused.add(socket);
    socket.once('close', () => {
      state.idleSince.delete(socket);
      state.unused.delete(socket);
    });
  });
  // Before the app's own listener, so that the header is set before the app could answer.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket;
    state.responses.add(res);
    state.idleSince.delete(socket);
    state.unused.delete(socket);
    res.once('close', () => {
      state.responses.delete(res);
      if (!socket.destroyed) state.idleSince.set(socket, Date.now());
    });
    if (state.closing) closeAfter(res);
  });
}

/**
 * How long a connection must have been idle to be closed when the server closes: a keep-alive client
 * that has just had an answer may be sending its next request on it right then, which would meet a
 * reset instead of an answer. Within this time an active client's next request arrives, is answered
 * with `Connection: close` and the connection ends cleanly; one idle longer is closed at once.
 */
export const IDLE_LINGER_MS = 250;

/**
 * How long a connection that has not sent a request yet may stay when the server closes. Its client
 * connected to have a request answered, usually sent with the connection: a busy process may take
 * longer than IDLE_LINGER_MS from accepting the connection to reading that request, which must be
 * answered, not reset. A client that connects and sends nothing is closed after this.
 */
export const FIRST_REQUEST_LINGER_MS = 2_000;

/**
 * Stops accepting connections, answers the requests under way, and resolves once every connection
 * has closed. A keep-alive client would otherwise keep sending on its open connection (Node answers
 * requests there after `close()`, and waits for the connection's keep-alive timeout): every answer
 * from now on says `Connection: close`, and a connection is closed once it has been idle for
 * IDLE_LINGER_MS (FIRST_REQUEST_LINGER_MS while it has sent no request). What is still open after
 * `timeoutMs` is cut.
 */
export function closeServer(server: Server, timeoutMs = 10_000): Promise<void> {
  const state = trackedServers.get(server);
  return new Promise((resolve, reject) => {
    const closeIdle = () => {
      if (!state) return server.closeIdleConnections();
      const now = Date.now();
      for (const [socket, since] of state.idleSince) {
        if (now - since >= (state.unused.has(socket) ? FIRST_REQUEST_LINGER_MS : IDLE_LINGER_MS)) socket.destroy();
      }
    };
    const sweep = setInterval(closeIdle, 50);
    const cut = setTimeout(() => server.closeAllConnections(), timeoutMs);
    // net's close, not http's: that one also closes the idle connections at once (Node >= 19), under
    // the feet of a client sending on one right then. This stops listening and calls back once the
    // last connection has closed.
    NetServer.prototype.close.call(server, (error?: Error) => {
      clearInterval(sweep);
      clearTimeout(cut);
      if (error) reject(error);
      else resolve();
    });
    if (state) {
      state.closing = true;
      for (const response of state.responses) closeAfter(response);
    }
    closeIdle();
  });
}

/** The connection of `response` closes once it is answered (unless its head is out already: then it is closed once idle). */
function closeAfter(response: ServerResponse): void {
  if (!response.headersSent) response.setHeader('connection', 'close');
}
