import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { WebhookBody } from '@bedrequest/contracts';

export interface ReceivedWebhook {
  /** `webhook-id` header. */
  id: string;
  body: WebhookBody;
  headers: IncomingHttpHeaders;
  /** The signature checked out with the subscription's secret (standardwebhooks' Webhook.verify). */
  verified: boolean;
  /** Which request to this receiver this was for the same webhook-id (1 = first). */
  attempt: number;
  /** performance.now() at arrival: for time between arrivals, and since a send timed the same way. */
  receivedAt: number;
  /** The status this receiver answered. */
  status: number;
}

export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  /** Answer after this many milliseconds. */
  delayMs?: number;
  /**
   * Answer once this has settled (then after `delayMs`, if any): a test holds the answers under way
   * until it has seen what it waits for, e.g. every request of a burst arrive.
   */
  heldUntil?: Promise<unknown>;
}

/**
 * Linux hands out ports from 32768 to 60999 to `listen(0)` and to outgoing connections; below that
 * range a port is taken only by someone asking for it by number.
 */
const LOW_PORTS = { from: 20_000, count: 12_000 };

/**
 * The referring party's webhook endpoint on 127.0.0.1, for tests and measurements: it verifies each
 * request's signature like a referrer would and answers as the test scripts it (204 by default). A
 * request that is not a webhook (no `webhook-id`, a body that is not JSON) is answered 400 and not
 * recorded.
 *
 * It listens on a free port below the ephemeral range and keeps it when stopped and started again
 * (an outage). Not on port 0, and not in `freePort()`'s range (10000–19999): a port handed out to a
 * stack that another test worker is building may not be bound yet, and that stack's readiness probes
 * (`GET /health/ready`, no body) once reached a receiver that had taken the port meanwhile.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  /** The subscription secret to verify with; set it once the subscription exists. */
  secret?: string;
  answer: (webhook: ReceivedWebhook) => ReceiverAnswer = () => ({ status: 204 });
  /** The most requests answered at once for one request identifier (see `requestOf`). */
  maxInFlightPerRequest = 0;
  /** TCP connections opened to this receiver. */
  connections = 0;
  private readonly attempts = new Map<string, number>();
  private readonly inFlight = new Map<string, number>();
  private server?: Server;
  private port?: number;

  /** Starts answering, on the same port as before if it was started before; resolves with the callback URL. */
  async start(): Promise<string> {
    const server = createServer((req, res) => this.receive(req, res));
    server.on('connection', () => (this.connections += 1));
    // Connections stay open across pauses between bursts (Node's default is 5 s), as the
    // notifier's keep-alive pool expects of a receiver.
    server.keepAliveTimeout = 30_000;
    this.port = this.port === undefined ? await listenOnLowPort(server) : await listen(server, this.port);
    this.server = server;
    return this.url;
  }

  /** Stops answering: until `start`, every attempt meets a closed port. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }

  get url(): string {
    if (this.port === undefined) throw new Error('the webhook receiver has no port before its first start');
    return `http://127.0.0.1:${this.port}/webhooks`;
  }

  /** Forgets what was received (attempts count from 1 again). */
  reset(): void {
    this.received.length = 0;
    this.attempts.clear();
    this.maxInFlightPerRequest = 0;
  }

  /** The webhooks this receiver accepted (answered 2xx), in the order they came. */
  accepted(): ReceivedWebhook[] {
    return this.received.filter((webhook) => webhook.status >= 200 && webhook.status < 300);
  }

  attemptsOf(eventId: string): ReceivedWebhook[] {
    return this.received.filter((webhook) => webhook.id === eventId);
  }

  private receive(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const webhook = this.read(Buffer.concat(chunks).toString('utf8'), req.headers);
      if (!webhook) {
        res.writeHead(400).end();
        return;
      }
      const request = requestOf(webhook.body);
      const inFlight = (this.inFlight.get(request) ?? 0) + 1;
      this.inFlight.set(request, inFlight);
      this.maxInFlightPerRequest = Math.max(this.maxInFlightPerRequest, inFlight);
      const answer = this.answer(webhook);
      webhook.status = answer.status;
      this.received.push(webhook);
      const respond = () => {
        this.inFlight.set(request, (this.inFlight.get(request) ?? 1) - 1);
        res.writeHead(answer.status, answer.headers).end();
      };
      const answerNow = () => (answer.delayMs ? void setTimeout(respond, answer.delayMs) : respond());
      if (answer.heldUntil) void answer.heldUntil.then(answerNow, answerNow);
      else answerNow();
    });
  }

  private read(raw: string, headers: IncomingHttpHeaders): ReceivedWebhook | undefined {
    const id = headers['webhook-id'];
    if (typeof id !== 'string') return undefined;
    let body: WebhookBody;
    try {
      body = JSON.parse(raw) as WebhookBody;
    } catch {
      return undefined;
    }
    const attempt = (this.attempts.get(id) ?? 0) + 1;
    this.attempts.set(id, attempt);
    return { id, body, headers, verified: this.verify(raw, headers), attempt, receivedAt: performance.now(), status: 0 };
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

/** The request a webhook is about: the identifier in its Task's basedOn ('' when there is none). */
export function requestOf(body: WebhookBody): string {
  const task = body.data as { basedOn?: { identifier?: { value?: string } }[] } | undefined;
  return task?.basedOn?.[0]?.identifier?.value ?? '';
}

async function listenOnLowPort(server: Server): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      return await listen(server, LOW_PORTS.from + Math.floor(Math.random() * LOW_PORTS.count));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    }
  }
  throw new Error('no free port for the webhook receiver');
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}
