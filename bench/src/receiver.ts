import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The referrer's webhook endpoint: notes when each request's first event arrived. */
export class WebhookReceiver {
  readonly firstArrival = new Map<string, number>();
  eventIds = new Set<string>();
  received = 0;
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const arrived = performance.now();
        res.writeHead(204).end();
        try {
          const event = JSON.parse(Buffer.concat(chunks).toString()) as { id: string; data?: { basedOn?: { identifier?: { value?: string } }[] } };
          this.received++;
          this.eventIds.add(event.id);
          const identifier = event.data?.basedOn?.[0]?.identifier?.value;
          if (identifier && !this.firstArrival.has(identifier)) this.firstArrival.set(identifier, arrived);
        } catch {
          // not an event: ignore
        }
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhook`;
  }

  reset(): void {
    this.firstArrival.clear();
    this.eventIds = new Set();
    this.received = 0;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
