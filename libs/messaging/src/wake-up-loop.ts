import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Logger } from 'pino';

export interface WakeUpLoopOptions {
  /** One pass of the work: it takes whatever is there to do now. */
  pass: () => Promise<void>;
  /** A pass at least this often: the safety net for wakes that were missed and passes that failed. */
  intervalMs: number;
  /** Called each time the interval elapses, before the wake it makes. */
  onInterval?: () => void;
  logger: Logger;
  /** Logged (warn) when a pass fails; the loop carries on. */
  failureMessage: string;
}

/**
 * Runs a pass of work when woken and every `intervalMs`. Wakes within one turn of the event loop
 * are one pass (a batch of commits wakes once, not once per commit); one pass runs at a time, and
 * a wake during a pass makes one more pass after it, so that what the wake was for is not left
 * until the next interval. `stop` waits for the pass under way.
 */
export class WakeUpLoop {
  private timer?: NodeJS.Timeout;
  private wakeScheduled = false;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(private readonly options: WakeUpLoopOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      this.options.onInterval?.();
      this.wake();
    }, this.options.intervalMs);
    this.timer.unref();
    this.wake();
  }

  /** A pass soon: on the next turn of the event loop, or after the pass under way. */
  wake(): void {
    if (this.stopped || this.wakeScheduled) return;
    this.wakeScheduled = true;
    // A pass is nobody's child: not of the request or batch whose commit woke it (its spans, such as
    // its statements', would join that trace).
    setImmediate(
      context.bind(ROOT_CONTEXT, () => {
        this.wakeScheduled = false;
        this.runPass();
      }),
    );
  }

  /**
   * No more passes; resolves once the one under way (if any) has ended. With `lastPass`, one more
   * pass runs after it, for what a wake that came too late was for (an outbox's last commits).
   */
  async stop(options: { lastPass?: boolean } = {}): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
    if (options.lastPass) await this.options.pass().catch((error: unknown) => this.options.logger.warn({ err: String(error) }, this.options.failureMessage));
  }

  private runPass(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.options
      .pass()
      .catch((error: unknown) => this.options.logger.warn({ err: String(error) }, this.options.failureMessage))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.runPass();
        }
      });
  }
}
