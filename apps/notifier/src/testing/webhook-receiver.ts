import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookBody } from '../delivery/webhook-message';

export interface ReceivedWebhook {
  /** `webhook-id` header. */
  id: string;
  body: WebhookBody;
  headers: IncomingHttpHeaders;
  /** The signature checked out with the subscription's secret (standardwebhooks' Webhook.verify). */
  verified: boolean;
  /** Which request to this receiver this was for the same webhook-id (1 = first). */
  attempt: number;
  receivedAt: number;
  /** The status this receiver answered. */
  status: number;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Answer after this many milliseconds. */
  delayMs?: number;
}

/**
 * A real webhook receiver on 127.0.0.1 (port 0) for integration tests: verifies every request's
 * signature like a referring party would and answers as the test scripts it.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** The subscription secret to verify with; set it once the subscription exists. */
  secret?: string;
  answer: (webhook: ReceivedWebhook) => ReceiverAnswer = () => ({ status: 204 });
  /** Requests being answered right now, per request identifier (from the Task's basedOn). */
  private readonly inFlight = new Map<string, number>();
  maxInFlightPerRequest = 0;
  /** TCP connections the notifier opened to this receiver. */
  connections = 0;
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const id = String(req.headers['webhook-id']);
        const webhook: ReceivedWebhook = {
          id,
          body: JSON.parse(raw) as WebhookBody,
          headers: req.headers,
          verified: this.verify(raw, req.headers),
          attempt: this.received.filter((earlier) => earlier.id === id).length + 1,
          receivedAt: Date.now(),
          status: 0,
        };
        const request = requestOf(webhook.body);
        this.inFlight.set(request, (this.inFlight.get(request) ?? 0) + 1);
        this.maxInFlightPerRequest = Math.max(this.maxInFlightPerRequest, this.inFlight.get(request)!);
        const answer = this.answer(webhook);
        webhook.status = answer.status;
        this.received.push(webhook);
        setTimeout(() => {
          this.inFlight.set(request, this.inFlight.get(request)! - 1);
          res.writeHead(answer.status, answer.headers).end();
        }, answer.delayMs ?? 0);
      });
    });
    this.server.on('connection', () => (this.connections += 1));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/webhooks`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => (this.server ? this.server.close(resolve) : resolve(undefined)));
  }

  /** The webhooks this receiver accepted (answered 2xx), in the order they came. */
  accepted(): ReceivedWebhook[] {
    return this.received.filter((webhook) => webhook.status >= 200 && webhook.status < 300);
  }

  attemptsOf(eventId: string): ReceivedWebhook[] {
    return this.received.filter((webhook) => webhook.id === eventId);
  }

  private verify(raw: string, headers: IncomingHttpHeaders): boolean {
    if (!this.secret) return false;
    try {
      new Webhook(this.secret).verify(raw, headers as Record<string, string>);
      return true;
    } catch {
      return false;
    }
  }
}

/** The request identifier the test put into the Task's basedOn. */
export function requestOf(body: WebhookBody): string {
  const task = body.data as { basedOn?: { identifier?: { value?: string } }[] };
  return task.basedOn?.[0]?.identifier?.value ?? '';
}
