import type { Logger } from 'pino';
import { newCorrelationId, type RequestErasureRepository } from './request-erasure.repository';

/** Once an hour is plenty for periods counted in days. */
const RETENTION_INTERVAL_MS = 60 * 60 * 1000;
/** Requests erased per statement that finds them; a run goes on until none is left. */
const BATCH = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionPeriods {
  /** How long a selected request is kept (RETENTION_SELECTED_DAYS). */
  selectedDays: number;
  /** How long after its retention ends (or its revocation) a request is erased (RETENTION_ERASURE_DELAY_DAYS). */
  erasureDelayDays: number;
}

/** Referrers' drafts of new requests, deleted `days` after their last save (REFERRER_DRAFT_RETENTION_DAYS). */
export interface DraftRetention {
  days: number;
  deleteSavedBefore(before: Date): Promise<number>;
}

/**
 * Erases the patient data of requests whose retention ended (docs/data-protection.md): revoked
 * more than the erasure delay ago, or selected more than the retention plus the delay ago. Each
 * request is erased like a referrer's erasure (its own transaction, audited as the service's,
 * told to the notifier), with reason `retention`. Every intake process runs it; two erasing the
 * same request meet at its row lock and the second finds it erased. Referrers' drafts saved last
 * longer ago than their retention are deleted first, in one statement.
 */
export class RetentionJob {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly erasures: RequestErasureRepository,
    private readonly periods: RetentionPeriods,
    private readonly logger: Logger,
    private readonly options: { now?: () => Date; drafts?: DraftRetention } = {},
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.run(), RETENTION_INTERVAL_MS);
    this.timer.unref();
    void this.run();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One run: erases every request due, and resolves with how many it erased (never rejects). */
  run(): Promise<number> {
    if (this.running) return this.running.then(() => 0);
    let erased = 0;
    const work = this.eraseDue((count) => (erased += count))
      .catch((error: unknown) => this.logger.warn({ err: String(error) }, 'erasing requests past their retention failed; will retry'))
      .finally(() => {
        this.running = undefined;
      });
    this.running = work;
    return work.then(() => erased);
  }

  private async eraseDue(count: (erased: number) => void): Promise<void> {
    const now = (this.options.now ?? (() => new Date()))().getTime();
    const drafts = this.options.drafts;
    if (drafts) {
      const deleted = await drafts.deleteSavedBefore(new Date(now - drafts.days * DAY_MS));
      if (deleted > 0) this.logger.info({ drafts: deleted }, 'drafts past their retention deleted');
    }
    const delay = this.periods.erasureDelayDays * DAY_MS;
    const bounds = { revokedBefore: new Date(now - delay), selectedBefore: new Date(now - delay - this.periods.selectedDays * DAY_MS) };
    for (;;) {
      const due = await this.erasures.dueForRetention(bounds, BATCH);
      for (const identifier of due) {
        const result = await this.erasures.erase(
          { identifier },
          { agent: { kind: 'service', service: 'intake' }, reason: 'retention', correlationId: newCorrelationId() },
        );
        if (result.outcome === 'erased') count(1);
      }
      if (due.length > 0) this.logger.info({ requests: due.length }, 'requests past their retention erased');
      if (due.length < BATCH) return;
    }
  }
}
