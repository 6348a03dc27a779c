import { isIP } from 'node:net';
import { Agent } from 'undici';
import { CallbackAddressRefusedError, forbiddenAddressReason, guardedLookup, systemResolve, type Resolve } from '@bedrequest/http';
import type { AttemptOutcome } from './retry-policy';

const USER_AGENT = 'bedrequest-webhooks/1';

/** undici's own timeouts; each fires at the attempt deadline at the earliest, so they count as "no answer in time". */
const UNDICI_TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
}

export interface SendResult {
  outcome: AttemptOutcome;
  durationMs: number;
}

export interface WebhookSenderOptions {
  timeoutMs: number;
  allowPrivate: boolean;
  resolve?: Resolve;
  /**
   * Most connections kept to one callback origin. The worker never has more attempts in flight than
   * its concurrency, so with this equal to it an attempt never waits for a free connection: it is
   * sent at once and has its whole timeout for the answer, as with a connection of its own.
   */
  connectionsPerOrigin: number;
}

/**
 * Makes webhook attempts: `POST` with the signed body over a keep-alive connection pool per callback
 * origin (undici), no redirects followed (a 3xx is just a failed attempt: following one could lead
 * anywhere, including inside our network), and one deadline for the whole exchange.
 *
 * The address guard (docs/decisions.md, "Subscriptions and webhooks") runs for every new connection: its
 * DNS lookup goes through `guardedLookup`, and the socket connects only to the checked address, so
 * a pooled connection was checked when it opened. Node skips `lookup` for an IP literal host, so
 * those are checked here before every request. Never throws: every way an attempt can end is an
 * AttemptOutcome.
 */
export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly options: WebhookSenderOptions) {
    this.agent = new Agent({
      connections: options.connectionsPerOrigin,
      // HTTP/1.1 only, one request at a time per connection, as receivers got it before pooling.
      allowH2: false,
      pipelining: 1,
      connectTimeout: options.timeoutMs,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { lookup: guardedLookup(options.resolve ?? systemResolve, { allowPrivate: options.allowPrivate }) },
    });
  }

  /** `durationMs` runs until the answer's head (or the failure), as before pooling. */
  async send(callbackUrl: string, request: { body: string; headers: Record<string, string> }): Promise<SendResult> {
    const started = performance.now();
    let durationMs: number | undefined;
    const outcome = await this.attempt(callbackUrl, request, () => (durationMs = Math.round(performance.now() - started)));
    return { outcome, durationMs: durationMs ?? Math.round(performance.now() - started) };
  }

  /**
   * Closes the pooled connections. Called once the worker has stopped: an attempt still under way
   * then is one the worker handed back (DeliveryWorker.stop), and its request is cut.
   */
  async close(): Promise<void> {
    await this.agent.destroy();
  }

  private async attempt(callbackUrl: string, request: { body: string; headers: Record<string, string> }, onHead: () => void): Promise<AttemptOutcome> {
    let target: URL;
    try {
      target = new URL(callbackUrl);
    } catch {
      return { kind: 'no-answer', reason: 'refused', error: 'the callback URL is not a URL' };
    }
    if (!this.options.allowPrivate) {
      const host = target.hostname.replace(/^\[|\]$/g, '');
      const reason = isIP(host) ? forbiddenAddressReason(host) : undefined;
      if (reason) return { kind: 'no-answer', reason: 'refused', error: `the callback address is a ${reason}` };
    }
    // Bounds the whole exchange: waiting for a connection, connecting, the answer's head and body.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new AttemptTimeoutError(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    try {
      const response = await this.agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers: { ...request.headers, 'user-agent': USER_AGENT },
        body: request.body,
        signal: deadline.signal,
      });
      onHead();
      const retryAfter = response.headers['retry-after'];
      // The body is never used. Reading it to its end (it usually came with the head) puts the
      // connection back into the pool before the next attempt; a body over 64 KiB, or one still
      // streaming at the deadline, closes the connection instead.
      await response.body.dump({ limit: 64 * 1024, signal: deadline.signal }).catch(() => undefined);
      return { kind: 'answered', statusCode: response.statusCode, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter };
    } catch (error) {
      return noAnswer(error as NodeJS.ErrnoException, this.options.timeoutMs);
    } finally {
      clearTimeout(timer);
    }
  }
}

function noAnswer(error: NodeJS.ErrnoException, timeoutMs: number): AttemptOutcome {
  if (error instanceof AttemptTimeoutError) return { kind: 'no-answer', reason: 'timeout', error: error.message };
  if (UNDICI_TIMEOUT_CODES.has(error.code ?? '')) return { kind: 'no-answer', reason: 'timeout', error: `no answer within ${timeoutMs} ms` };
  if (error instanceof CallbackAddressRefusedError) return { kind: 'no-answer', reason: 'refused', error: error.message };
  return { kind: 'no-answer', reason: 'network', error: `connection failed: ${error.code ?? error.message}` };
}
