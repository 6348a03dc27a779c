import type { Logger } from 'pino';

export interface PeriodicRunOptions<T> {
  /** One run of the job: everything due now; resolves with what it did (e.g. how many rows). */
  work: () => Promise<T>;
  /** What a run that did nothing resolves with: one that failed, or one asked for while another was under way. */
  idle: T;
  intervalMs: number;
  logger: Logger;
  /** Logged (warn) when a run fails; the next interval tries again. */
  failureMessage: string;
}

/**
 * A job run every `intervalMs` and on demand (`run`), one run at a time in this process: a run asked
 * for while one is under way waits for it and resolves `idle`. A run never rejects: its failure is
 * logged and it resolves `idle`. `stop` waits for the run under way. Several processes running the
 * same job is the job's own concern (row locks, `SKIP LOCKED`).
 */
export class PeriodicRun<T> {
  private timer?: NodeJS.Timeout;
  private running?: Promise<T>;

  constructor(private readonly options: PeriodicRunOptions<T>) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), this.options.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  run(): Promise<T> {
    if (this.running) return this.running.then(() => this.options.idle);
    const work = this.options
      .work()
      .catch((error: unknown) => {
        this.options.logger.warn({ err: String(error) }, this.options.failureMessage);
        return this.options.idle;
      })
      .finally(() => {
        this.running = undefined;
      });
    this.running = work;
    return work;
  }
}
