import type { Server } from 'node:http';
import type { Logger } from 'pino';

/**
 * Every `initX` registers its `closeX` here; `stop` closes them in reverse order (HTTP first, then
 * consumers, then connections), each once, logging but not stopping on a failing closer.
 */
export class Lifecycle {
  private readonly closers: { name: string; close: () => Promise<unknown> }[] = [];
  private stopped?: Promise<void>;

  constructor(private readonly logger: Logger) {}

  onStop(name: string, close: () => Promise<unknown>): void {
    this.closers.push({ name, close });
  }

  stop(): Promise<void> {
    this.stopped ??= this.closeAll();
    return this.stopped;
  }

  private async closeAll(): Promise<void> {
    for (const { name, close } of [...this.closers].reverse()) {
      try {
        await close();
        this.logger.debug({ component: name }, 'stopped');
      } catch (error) {
        this.logger.error({ component: name, err: (error as Error).message }, 'failed to stop cleanly');
      }
    }
  }
}

/** Stops accepting connections and resolves when open requests have finished. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((error) => (error ? reject(error) : resolve()));
    server.closeIdleConnections();
  });
}
