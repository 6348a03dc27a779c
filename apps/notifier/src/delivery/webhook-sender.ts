import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import { CallbackAddressRefusedError, forbiddenAddressReason, guardedLookup, systemResolve, type Resolve } from './address-guard';
import type { AttemptOutcome } from './retry-policy';

const USER_AGENT = 'bedrequest-webhooks/1';

class AttemptTimeoutError extends Error {
  override name = 'AttemptTimeoutError';
}

export interface SendResult {
  outcome: AttemptOutcome;
  durationMs: number;
}

/**
 * Makes one webhook attempt: `POST` with the signed body, a fresh connection (so every attempt
 * passes the address guard), no redirects followed (a 3xx is just a failed attempt: following one
 * could lead anywhere, including inside our network), and a deadline for the answer's head.
 * Never throws: every way an attempt can end is an AttemptOutcome.
 */
export class WebhookSender {
  private readonly resolve: Resolve;

  constructor(private readonly options: { timeoutMs: number; allowPrivate: boolean; resolve?: Resolve }) {
    this.resolve = options.resolve ?? systemResolve;
  }

  async send(callbackUrl: string, request: { body: string; headers: Record<string, string> }): Promise<SendResult> {
    const started = performance.now();
    const outcome = await this.attempt(callbackUrl, request);
    return { outcome, durationMs: Math.round(performance.now() - started) };
  }

  private attempt(callbackUrl: string, request: { body: string; headers: Record<string, string> }): Promise<AttemptOutcome> {
    let target: URL;
    try {
      target = new URL(callbackUrl);
    } catch {
      return Promise.resolve({ kind: 'no-answer', reason: 'refused', error: 'the callback URL is not a URL' });
    }
    if (!this.options.allowPrivate) {
      // Node does not call `lookup` for an IP literal; check it here.
      const host = target.hostname.replace(/^\[|\]$/g, '');
      const reason = isIP(host) ? forbiddenAddressReason(host) : undefined;
      if (reason) return Promise.resolve({ kind: 'no-answer', reason: 'refused', error: `the callback address is a ${reason}` });
    }
    return new Promise((resolve) => {
      let settled = false;
      const settle = (outcome: AttemptOutcome) => {
        if (settled) return;
        settled = true;
        resolve(outcome);
      };
      const transport = target.protocol === 'https:' ? https : http;
      const req = transport.request(target, {
        method: 'POST',
        headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)), 'user-agent': USER_AGENT },
        agent: false,
        ...(this.options.allowPrivate ? {} : { lookup: guardedLookup(this.resolve) }),
      });
      // Bounds the whole exchange: the answer's head must come in time; a body still streaming at
      // the deadline is cut off (its content is never used).
      const deadline = setTimeout(() => req.destroy(new AttemptTimeoutError(`no answer within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
      req.on('close', () => clearTimeout(deadline));
      req.on('response', (response) => {
        const retryAfter = response.headers['retry-after'];
        settle({ kind: 'answered', statusCode: response.statusCode ?? 0, retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter });
        response.on('error', () => undefined);
        response.resume();
      });
      req.on('error', (error: NodeJS.ErrnoException) => settle(noAnswer(error)));
      req.end(request.body);
    });
  }
}

function noAnswer(error: NodeJS.ErrnoException): AttemptOutcome {
  if (error instanceof AttemptTimeoutError) return { kind: 'no-answer', reason: 'timeout', error: error.message };
  if (error instanceof CallbackAddressRefusedError) return { kind: 'no-answer', reason: 'refused', error: error.message };
  return { kind: 'no-answer', reason: 'network', error: `connection failed: ${error.code ?? error.message}` };
}
