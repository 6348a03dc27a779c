import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { AdmissionResponseWebhook } from '@bedrequest/contracts';

/** The mistakes receivers make that the receiver check finds, one each. */
export type ReceiverMistake =
  /** Checks the timestamp, not the signature. */
  | 'accepts-any-signature'
  /** Checks the signature, not how old its timestamp is. */
  | 'accepts-stale-timestamp'
  /** Handles every send, duplicates included. */
  | 'handles-duplicates-twice'
  /** Refuses a duplicate (409, 500) instead of acknowledging it. */
  | 'answers-duplicate-409'
  | 'answers-duplicate-500'
  /** Answers its first webhook only after `slowMs` (a cold start). */
  | 'slow-first-answer';

export interface TestReceiverOptions {
  readonly secret: string;
  readonly mistake?: ReceiverMistake;
  /** How `GET /count` answers: `{"count": n}` (the default), a JSON number, or plain text. */
  readonly countAs?: 'object' | 'number' | 'text';
  /** `slow-first-answer`: how long its first answer waits; 2 s unless given. */
  readonly slowMs?: number;
}

export interface TestReceiver {
  /** Where it takes webhooks: `http://127.0.0.1:<port>/webhooks`. */
  readonly url: string;
  /** Its count of handled events: `http://127.0.0.1:<port>/count`. */
  readonly countUrl: string;
  /** The events it handled, in order (a duplicate once, unless its mistake is to handle it twice). */
  readonly handled: readonly AdmissionResponseWebhook[];
  /** Each webhook request it got, handled or refused: its headers and raw body. */
  readonly received: readonly { headers: IncomingMessage['headers']; body: string }[];
  close(): Promise<void>;
}

const TOLERANCE_SECONDS = 5 * 60;

/**
 * A webhook receiver on 127.0.0.1 as docs/webhooks.md, "Verifying the signature", tells integrators to
 * build one (the `standardwebhooks` package over the raw body, deduplicating by webhook-id, each event
 * checked against the contract's AdmissionResponseWebhook), or with one `mistake`.
 */
export async function startTestReceiver(options: TestReceiverOptions): Promise<TestReceiver> {
  const webhook = new Webhook(options.secret);
  const handled: AdmissionResponseWebhook[] = [];
  const received: { headers: IncomingMessage['headers']; body: string }[] = [];
  const seen = new Set<string>();
  const timers = new Set<NodeJS.Timeout>();

  const answer = (response: ServerResponse, status: number, delayMs = 0) => {
    if (delayMs === 0) return void response.writeHead(status).end();
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!response.destroyed) response.writeHead(status).end();
    }, delayMs);
    timers.add(timer);
  };

  const onWebhook = (request: IncomingMessage, body: string, response: ServerResponse) => {
    const delayMs = options.mistake === 'slow-first-answer' && received.length === 0 ? (options.slowMs ?? 2_000) : 0;
    received.push({ headers: request.headers, body });
    if (!verifies(webhook, options.mistake, request.headers, body)) return answer(response, 401, delayMs);
    const event = AdmissionResponseWebhook.safeParse(parsedJson(body));
    if (!event.success) return answer(response, 400, delayMs);
    if (seen.has(event.data.id)) {
      if (options.mistake === 'answers-duplicate-409') return answer(response, 409, delayMs);
      if (options.mistake === 'answers-duplicate-500') return answer(response, 500, delayMs);
      if (options.mistake !== 'handles-duplicates-twice') return answer(response, 204, delayMs);
    }
    seen.add(event.data.id);
    handled.push(event.data);
    return answer(response, 204, delayMs);
  };

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (request.method === 'GET' && request.url === '/count') {
        const count = handled.length;
        const text = options.countAs === 'number' ? String(count) : options.countAs === 'text' ? `${count}\n` : JSON.stringify({ count });
        response.writeHead(200, { 'content-type': options.countAs === 'text' ? 'text/plain' : 'application/json' }).end(text);
      } else if (request.method === 'POST' && request.url === '/webhooks') {
        onWebhook(request, body, response);
      } else {
        response.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/webhooks`,
    countUrl: `${base}/count`,
    handled,
    received,
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function verifies(webhook: Webhook, mistake: ReceiverMistake | undefined, headers: IncomingMessage['headers'], body: string): boolean {
  const id = String(headers['webhook-id'] ?? '');
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = String(headers['webhook-signature'] ?? '');
  if (mistake === 'accepts-any-signature') return Math.abs(Date.now() / 1000 - timestamp) <= TOLERANCE_SECONDS;
  if (mistake === 'accepts-stale-timestamp') {
    // By hand, as docs/webhooks.md shows it, without its first line (the replay window).
    const expected = Buffer.from(webhook.sign(id, new Date(timestamp * 1000), body));
    return signatures.split(' ').some((candidate) => {
      const given = Buffer.from(candidate);
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
  }
  try {
    webhook.verify(body, { 'webhook-id': id, 'webhook-timestamp': String(headers['webhook-timestamp'] ?? ''), 'webhook-signature': signatures });
    return true;
  } catch {
    return false;
  }
}

function parsedJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
