import type { Logger } from 'pino';
import type { DeliveryRepository } from './delivery.repository';

/** Once an hour is plenty for a retention counted in days. */
const CLEANUP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Deletes delivered and given-up events once they are older than the retention (default 7 days,
 * the gap-recovery window of `GET /api/v1/subscriptions/{id}/events?since=`). Every notifier process
 * runs it; the DELETE is idempotent, so concurrent runs do no harm.
 */
export class RetentionCleanup {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly deliveries: DeliveryRepository,
    private readonly retentionMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.run(), CLEANUP_INTERVAL_MS);
    this.timer.unref();
    this.run();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  private run(): void {
    if (this.running) return;
    this.running = this.deliveries
      .purgeOlderThan(this.retentionMs)
      .then(({ deliveries }) => {
        if (deliveries > 0) this.logger.info({ deliveries }, 'old events deleted');
      })
      .catch((error: unknown) => this.logger.warn({ err: String(error) }, 'deleting old events failed; will retry'))
      .finally(() => {
        this.running = undefined;
      });
  }
}
