import type { SignedRequest } from './test-event';

/** How much of an answer's body is read: a count is a few bytes, and a webhook's answer is not used. */
const BODY_LIMIT_BYTES = 4 * 1024;

/** How one request ended: an answer (its status, the time to its head, what was read of its body), or none and why. */
export type Exchange =
  | { readonly kind: 'answered'; readonly status: number; readonly ms: number; readonly body: string }
  | { readonly kind: 'no-answer'; readonly error: string; readonly ms: number };

export interface ExchangeSettings {
  readonly fetchImpl: typeof fetch;
  readonly timeoutMs: number;
}

export function postWebhook(settings: ExchangeSettings, url: string, request: SignedRequest): Promise<Exchange> {
  return exchange(settings, url, { method: 'POST', headers: request.headers, body: request.body });
}

export function getCount(settings: ExchangeSettings, url: string): Promise<Exchange> {
  return exchange(settings, url, { method: 'GET', headers: { accept: 'application/json, text/plain' } });
}

/**
 * One request with one deadline for the whole exchange (connecting, the head, the body read), as
 * the notifier's attempts (docs/webhooks.md, "Delivery"). Redirects are not followed: the service
 * does not follow them either, so a 3xx is the receiver's answer. Never throws.
 */
async function exchange(settings: ExchangeSettings, url: string, init: RequestInit): Promise<Exchange> {
  const deadline = AbortSignal.timeout(settings.timeoutMs);
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let response: Response;
  try {
    response = await beforeDeadline(settings.fetchImpl(url, { ...init, redirect: 'manual', signal: deadline }), deadline);
  } catch (error) {
    const ms = elapsed();
    return { kind: 'no-answer', ms, error: deadline.aborted ? `no answer within ${settings.timeoutMs} ms` : failureOf(error) };
  }
  const ms = elapsed();
  // A body still streaming at the deadline is cut; the status came in time and stands.
  const body = await readAtMost(response, BODY_LIMIT_BYTES, deadline).catch(() => '');
  return { kind: 'answered', status: response.status, ms, body };
}

/** The first `limit` bytes of the body, as text; the rest is never read (the stream is cancelled). */
async function readAtMost(response: Response, limit: number, deadline: AbortSignal): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await beforeDeadline(reader.read(), deadline);
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

/**
 * `work`, or a rejection when the deadline passes first: the bound holds even for a fetchImpl that
 * does not honour its signal.
 */
function beforeDeadline<T>(work: Promise<T>, deadline: AbortSignal): Promise<T> {
  if (deadline.aborted) return Promise.reject(deadline.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(deadline.reason as Error);
    deadline.addEventListener('abort', onAbort, { once: true });
    void work.then(resolve, reject).finally(() => deadline.removeEventListener('abort', onAbort));
  });
}

/** `connection failed: ECONNREFUSED`, or the refusal of a guarding fetch (its message). */
function failureOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  if (typeof cause?.code === 'string') return `connection failed: ${cause.code}`;
  if (typeof cause?.message === 'string' && cause.message) return `connection failed: ${cause.message}`;
  return `request failed: ${error instanceof Error ? error.message : String(error)}`;
}
