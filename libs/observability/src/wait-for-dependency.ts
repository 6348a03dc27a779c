import pRetry from 'p-retry';
import type { Logger } from 'pino';

/** A starting service gave up waiting for something it needs; the message is the one line to print. */
export class DependencyUnavailableError extends Error {
  override name = 'DependencyUnavailableError';

  constructor(
    readonly waiting: Waiting,
    readonly waitedMs: number,
    options?: ErrorOptions,
  ) {
    super(`gave up waiting for ${waiting.what} after ${seconds(waitedMs)}: ${waiting.reason}`, options);
  }
}

/** What a failed attempt was waiting for ("auth at http://127.0.0.1:8081") and why it failed. */
export interface Waiting {
  readonly what: string;
  readonly reason: string;
}

export interface WaitOptions {
  logger: Logger;
  /** Reads the failure of an attempt: which dependency did not answer, and why. */
  describe: (error: unknown) => Waiting;
  /** After this long without an answer, say once (warn) what the service is waiting for. */
  noticeAfterMs?: number;
  /** After this long, give up: DependencyUnavailableError naming the dependency and the last reason. */
  giveUpAfterMs?: number;
}

/** The defaults: quiet for a normal start (the stack is up within a few seconds), bounded when something is missing. */
export const NOTICE_AFTER_MS = 5_000;
export const GIVE_UP_AFTER_MS = 60_000;

/**
 * The first contact of a starting service with something it needs (another service, the database,
 * the broker), which may still be starting itself: `attempt` is tried again with backoff (0.2 s,
 * doubling up to 1 s) and no log line while the wait is short. After `noticeAfterMs` it says once
 * what it is waiting for; when the answer comes after that, it says so too; after `giveUpAfterMs`
 * it throws one DependencyUnavailableError whose message names the dependency and the last reason.
 * Failures are expected here, so none is logged with a stack.
 */
export async function waitForDependency<T>(attempt: () => Promise<T>, options: WaitOptions): Promise<T> {
  const { logger, describe, noticeAfterMs = NOTICE_AFTER_MS, giveUpAfterMs = GIVE_UP_AFTER_MS } = options;
  const startedAt = performance.now();
  let last: Waiting | undefined;
  let overdue = false;
  let noticed = false;
  const notice = () => {
    if (noticed || !overdue || !last) return;
    noticed = true;
    logger.warn({ reason: last.reason }, `waiting for ${last.what}`);
  };
  const timer = setTimeout(() => {
    overdue = true;
    notice();
  }, noticeAfterMs);
  try {
    const result = await pRetry(attempt, {
      // Every failure counts until the deadline: a dependency that is still starting refuses
      // connections, answers 503, or times out, and any of them may be followed by an answer.
      retries: Number.POSITIVE_INFINITY,
      minTimeout: 200,
      factor: 2,
      maxTimeout: 1_000,
      maxRetryTime: giveUpAfterMs,
      shouldRetry: () => true,
      onFailedAttempt: ({ error }) => {
        last = describe(error);
        notice();
      },
    });
    if (noticed) logger.info(`${last?.what ?? 'the dependency'} answered after ${seconds(performance.now() - startedAt)}`);
    return result;
  } catch (error) {
    throw new DependencyUnavailableError(last ?? describe(error), performance.now() - startedAt, { cause: error });
  } finally {
    clearTimeout(timer);
  }
}

/** 5234 → "5.2 s". */
export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
