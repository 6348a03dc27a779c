import { createServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ArrivedWebhook {
  /** `webhook-id` header. */
  headerId: string;
  /** `id` of the body: the event id. */
  id: string;
  sequence: number;
  requestIdentifier: string;
  businessStatus: string | undefined;
  verified: boolean;
  receivedAt: number;
}

/**
 * The referrer's webhook endpoint on 127.0.0.1, which can go down (its port closed: every attempt
 * meets a refused connection) and come back on the same port. Verifies each signature like a
 * referrer would, answers 204.
 */
export class OutageReceiver {
  readonly arrived: ArrivedWebhook[] = [];
  secret = '';
  private server?: Server;

  constructor(readonly port: number) {}

  /**
   * A free port below Linux's ephemeral range (32768–60999), so that no outgoing connection of
   * this machine can take it while the receiver is down and keep it from coming back.
   */
  static async onFreeLowPort(): Promise<OutageReceiver> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = 20_000 + Math.floor(Math.random() * 12_000);
      const free = await new Promise<boolean>((resolve) => {
        const probe = createNetServer();
        probe.once('error', () => resolve(false));
        probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
      });
      if (free) return new OutageReceiver(port);
    }
    throw new Error('no free port for the webhook receiver');
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/bedrequest/webhooks`;
  }

  async up(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const body = JSON.parse(raw) as { id: string; sequence: number; data: { basedOn?: { identifier?: { value?: string } }[]; businessStatus?: { coding?: { code?: string }[] } } };
        this.arrived.push({
          headerId: String(req.headers['webhook-id']),
          id: body.id,
          sequence: body.sequence,
          requestIdentifier: body.data.basedOn?.[0]?.identifier?.value ?? '',
          businessStatus: body.data.businessStatus?.coding?.[0]?.code,
          verified: this.verify(raw, req.headers as Record<string, string>),
          receivedAt: Date.now(),
        });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.port, '127.0.0.1', resolve);
    });
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  private verify(raw: string, headers: Record<string, string>): boolean {
    try {
      new Webhook(this.secret).verify(raw, headers);
      return true;
    } catch {
      return false;
    }
  }
}
