export interface ReceiverCheckOptions {
  /** The receiver's address (http or https). */
  url: string;
  /** The subscription's secret, as the service gave it (`whsec_...`). */
  secret: string;
  /** How long each answer may take; default 10_000 (the notifier's WEBHOOK_TIMEOUT). */
  timeoutMs?: number;
  /** Optional: the receiver's own count of events it handled (GET answers a JSON number, or `{"count": n}`, or a plain-text number). */
  countUrl?: string;
  /** Optional: how requests are made (the web app passes one that guards addresses). */
  fetchImpl?: typeof fetch;
}

/** The options as the checks use them, each one checked. */
export interface CheckedOptions {
  readonly url: string;
  readonly secret: string;
  readonly timeoutMs: number;
  readonly countUrl: string | undefined;
  readonly fetchImpl: typeof fetch;
}

/** An option of checkReceiver is missing or malformed: nothing was sent. `field` names the option. */
export class ReceiverCheckOptionsError extends Error {
  override name = 'ReceiverCheckOptionsError';

  constructor(
    readonly field: 'url' | 'secret' | 'timeoutMs' | 'countUrl',
    readonly problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

/** The notifier's WEBHOOK_TIMEOUT default (docs/webhooks.md, "Delivery": success is a 2xx within 10 s). */
const DEFAULT_TIMEOUT_MS = 10_000;
/** Six times the service's own limit: more proves nothing the service would accept, and keeps a run short. */
const MAX_TIMEOUT_MS = 60_000;
/** As the service's callback URLs (docs/webhooks.md, "Subscriptions"). */
const MAX_URL_LENGTH = 2048;
/** `whsec_` and the base64 of the key bytes (docs/webhooks.md, "Subscriptions"). */
const SECRET = /^whsec_(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;

export function checkedOptions(options: ReceiverCheckOptions): CheckedOptions {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (!Number.isInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    throw new ReceiverCheckOptionsError('timeoutMs', `must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  }
  // The secret is never quoted back: a message may end up in a log or on a screen.
  if (typeof options.secret !== 'string' || !SECRET.test(options.secret.trim())) {
    throw new ReceiverCheckOptionsError('secret', "must be the subscription's secret as the service gave it: whsec_ followed by base64");
  }
  return {
    url: checkedUrl('url', options.url),
    secret: options.secret.trim(),
    timeoutMs,
    countUrl: options.countUrl === undefined ? undefined : checkedUrl('countUrl', options.countUrl),
    fetchImpl: options.fetchImpl ?? fetch,
  };
}

/** An absolute http(s) URL without credentials; not quoted back either, it may carry a token in its query. */
function checkedUrl(field: 'url' | 'countUrl', text: unknown): string {
  let url: URL;
  try {
    url = new URL(String(text ?? '').trim());
  } catch {
    throw new ReceiverCheckOptionsError(field, 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ReceiverCheckOptionsError(field, 'must be an absolute http or https URL');
  if (url.username || url.password) throw new ReceiverCheckOptionsError(field, 'must not carry user:password@');
  if (url.href.length > MAX_URL_LENGTH) throw new ReceiverCheckOptionsError(field, `must be at most ${MAX_URL_LENGTH} characters long`);
  return url.href;
}
