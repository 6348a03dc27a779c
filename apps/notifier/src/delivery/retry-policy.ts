/**
 * What happens after an attempt (docs/decisions.md, "Subscriptions and webhooks"): any 2xx is success;
 * anything else, or no answer within the timeout, is retried after the next delay of the schedule
 * (±10 % jitter, so that receivers coming back are not hit by every sender at the same second).
 * 410 Gone disables the subscription; 429 and 503 with Retry-After are retried no earlier than the
 * receiver asked, clamped to 24 h.
 */
export const JITTER = 0.1;
/** A receiver cannot push its next attempt further out than this (24 h ≈ the whole default schedule). */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

export type AttemptOutcome =
  { kind: 'answered'; statusCode: number; retryAfter?: string | undefined } | { kind: 'no-answer'; reason: 'timeout' | 'network' | 'refused'; error: string };

export type NextStep =
  | { kind: 'delivered' }
  | { kind: 'retry'; delayMs: number }
  /** The schedule is used up: the event is given up (a manual retry can still send it). */
  | { kind: 'exhausted' }
  /** Keep the event, stop delivering to the subscription until it is re-enabled. */
  | { kind: 'disable-subscription'; reason: string };

export class RetryPolicy {
  constructor(
    /** Delays before the 2nd, 3rd, ... attempt. */
    private readonly schedule: readonly number[],
    private readonly random: () => number = Math.random,
    private readonly now: () => number = Date.now,
  ) {}

  /** `attempt` is the 1-based number of the attempt just made in the delivery's current schedule. */
  nextStep(outcome: AttemptOutcome, attempt: number): NextStep {
    if (outcome.kind === 'answered' && isSuccess(outcome.statusCode)) return { kind: 'delivered' };
    if (outcome.kind === 'answered' && outcome.statusCode === 410) {
      return { kind: 'disable-subscription', reason: 'the receiver answered 410 Gone' };
    }
    const delay = this.schedule[attempt - 1];
    if (delay === undefined) return { kind: 'exhausted' };
    const jittered = Math.round(delay * (1 + (this.random() * 2 - 1) * JITTER));
    const askedFor =
      outcome.kind === 'answered' && (outcome.statusCode === 429 || outcome.statusCode === 503) ? parseRetryAfter(outcome.retryAfter, this.now()) : undefined;
    return { kind: 'retry', delayMs: Math.max(jittered, askedFor ?? 0) };
  }
}

export function isSuccess(statusCode: number): boolean {
  return statusCode >= 200 && statusCode < 300;
}

/** RFC 9110 Retry-After: delay-seconds or an HTTP-date; milliseconds from now, within [0, 24 h]. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  const delay = value === undefined ? undefined : retryAfterDelay(value.trim(), now);
  return delay === undefined ? undefined : Math.min(Math.max(delay, 0), MAX_RETRY_AFTER_MS);
}

function retryAfterDelay(text: string, now: number): number | undefined {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // Every HTTP-date form (IMF-fixdate, RFC 850, asctime) starts with the day of the week;
  // Date.parse alone would read "-5" or "1.5" as years.
  if (!/^[A-Za-z]{3}/.test(text)) return undefined;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : date - now;
}
